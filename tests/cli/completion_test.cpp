// `dag completion bash|zsh|fish`: the bash script loaded into bash and its
// completion function asked, as bash asks it on Tab; the fish script loaded
// into fish and asked the same with `complete -C`; the zsh script loaded by
// compinit into an interactive zsh on a pseudo-terminal and Tab pressed; the
// zsh and fish scripts checked for every command, and read by their shells.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "help_commands.hpp"

namespace {

using namespace cli_test;

std::string script(const ScratchDir &dir, const std::string &shell_name) {
    Outcome r = shell(dir, dag_command({"completion", shell_name}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
}

// What the completion function that `complete -p dag` names offers for
// `words`, the last being the word under the cursor; sorted.
std::vector<std::string> bash_offers(const ScratchDir &dir, const std::vector<std::string> &words) {
    std::string array;
    for (const std::string &word : words) array += " " + cli_test::quoted(word);
    const std::string program =
        "source ./dag.bash || exit 3\n"
        "spec=$(complete -p dag) || exit 4\n"
        "function=${spec#*-F }; function=${function%% *}\n"
        "COMP_WORDS=(" + array + ")\n"
        "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
        "COMPREPLY=()\n"
        "\"$function\" dag \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\" || exit 5\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    Outcome r = shell(dir, "cd " + cli_test::quoted(dir.path) + " && bash -c " + cli_test::quoted(program));
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> offers = lines_of(r.out);
    offers.erase(std::remove(offers.begin(), offers.end(), ""), offers.end());
    std::sort(offers.begin(), offers.end());
    return offers;
}

// What fish offers for `line`, the cursor at its end, with ./dag.fish
// loaded: each candidate without its description; sorted.
std::vector<std::string> fish_offers(const ScratchDir &dir, const std::string &line) {
    const std::string program = "source ./dag.fish; or exit 3; complete -C " + cli_test::quoted(line);
    Outcome r = shell(dir, "cd " + cli_test::quoted(dir.path) + " && fish --no-config -c " + cli_test::quoted(program));
    EXPECT_EQ(r.status, 0) << r.err;
    // A condition that fails noisily (test on a word that is not a number) says so here.
    EXPECT_EQ(r.err, "") << line;
    std::vector<std::string> offers;
    for (const std::string &offer : lines_of(r.out))
        if (!offer.empty()) offers.push_back(offer.substr(0, offer.find('\t')));
    std::sort(offers.begin(), offers.end());
    return offers;
}

// What zsh offers for `line`, the cursor at its end, with ./_dag on its
// fpath: an interactive zsh on a pseudo-terminal (zpty) completes the line
// from a widget that then writes an end mark, so the wait ends when zsh has
// answered, not after a guessed time; every candidate given to compadd is
// written down on its way. Sorted.
std::vector<std::string> zsh_offers(const ScratchDir &dir, const std::string &line) {
    const std::string driver =
        "zmodload zsh/zpty || exit 3\n"
        "out=$PWD/offers.txt; : > $out\n"
        "zpty z 'zsh -f -i' || exit 4\n"
        "zpty -w z \"fpath=(${(q)PWD} \\$fpath); autoload -Uz compinit; compinit -u -D; exec 2>${(q)out}\"\n"
        "zpty -w z 'compadd() { local -a found; builtin compadd -O found \"$@\"; "
        "print -u2 -rl -- \"offer:\"${^found}; builtin compadd \"$@\" }'\n"
        "zpty -w z 'offers() { zle complete-word; print -u2 -r -- end }; zle -N offers; bindkey \"^X\" offers'\n"
        "zpty -n -w z \"$1\"$'\\C-x'\n"
        "for i in {1..600}; do grep -qx end $out && break; sleep 0.1; done\n"
        "zpty -d z\n"
        "grep -qx end $out || exit 5\n"
        "sed -n 's/^offer://p' $out\n";
    std::ofstream(dir.path + "/offers.zsh") << driver;
    Outcome r = shell(dir, "cd " + cli_test::quoted(dir.path) + " && zsh -f ./offers.zsh " + cli_test::quoted(line));
    EXPECT_EQ(r.status, 0) << line << ": " << r.err;
    std::vector<std::string> offers = lines_of(r.out);
    offers.erase(std::remove(offers.begin(), offers.end(), ""), offers.end());
    std::sort(offers.begin(), offers.end());
    offers.erase(std::unique(offers.begin(), offers.end()), offers.end());
    return offers;
}

using Words = std::vector<std::string>;

TEST(CliCompletion, BashCompletesCommandsOptionsAndTheirValues) {
    ScratchDir dir;
    std::ofstream(dir.path + "/dag.bash") << script(dir, "bash");
    std::ofstream(dir.path + "/plan.dot") << "digraph { a }";

    EXPECT_EQ(bash_offers(dir, {"dag", "wa"}), Words{"walk"});
    Words commands = listed_commands(dir);
    std::sort(commands.begin(), commands.end());
    Words offered = bash_offers(dir, {"dag", ""});
    for (const std::string &command : commands)
        EXPECT_TRUE(std::count(offered.begin(), offered.end(), command)) << command;
    EXPECT_EQ(bash_offers(dir, {"dag", "--v"}), Words{"--version"});
    // A command goes before "--": none was offered after it.
    EXPECT_EQ(bash_offers(dir, {"dag", "--", ""}), Words{});
    EXPECT_EQ(bash_offers(dir, {"dag", "--", "wa"}), Words{});

    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--out"}), Words{"--output"});
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--output", ""}), (Words{"grouped", "none", "stream"}));
    // bash splits "--progress=al" at "=" into three words.
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--progress", "=", "al"}), (Words{"always"}));
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--progress", "="}), (Words{"always", "auto", "never"}));
    // A bare --progress takes no value: the next word is the graph.
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--progress", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--report", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--exec", "pl"}), Words{});
    EXPECT_EQ(bash_offers(dir, {"dag", "order", "pl"}), Words{"plan.dot"});
    // A picture written and a report read are files too.
    EXPECT_EQ(bash_offers(dir, {"dag", "render", "plan.dot", "-o", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "render", "plan.dot", "--report", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "convert", "--to", ""}), (Words{"dot", "json", "mermaid", "text"}));
    EXPECT_EQ(bash_offers(dir, {"dag", "completion", ""}), (Words{"bash", "fish", "zsh"}));
}

TEST(CliCompletion, BashOffersFilesOnlyWhereTheCommandTakesOne) {
    ScratchDir dir;
    std::ofstream(dir.path + "/dag.bash") << script(dir, "bash");
    std::ofstream(dir.path + "/plan.dot") << "digraph { a }";

    // FILE, then vertex NAMEs: no file names offered for a NAME.
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "plan.dot", "pl"}), Words{});
    EXPECT_EQ(bash_offers(dir, {"dag", "descendants", "plan.dot", "a", "pl"}), Words{});
    // An option's value is not an argument; a bare flag takes none.
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "--from", "dot", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "--from", "=", "dot", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "--json", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "--json", "plan.dot", "--from", "dot", "pl"}), Words{});
    // After "--" every word is an argument.
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "--", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "ancestors", "--", "--json", "pl"}), Words{});
    // --target takes every name up to the next option, and the last word may still be FILE.
    EXPECT_EQ(bash_offers(dir, {"dag", "order", "--target", "a", "b", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--target", "a", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "order", "plan.dot", "--target", "a", "pl"}), Words{});
    EXPECT_EQ(bash_offers(dir, {"dag", "order", "--target", "a", "--json", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "order", "--target", "a", "--", "pl"}), Words{"plan.dot"});
    // bash splits a word at ':' as at '=': "mod:x" is one NAME, and after it comes the next.
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--exec", "echo", ":", "x", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "c", ":", "x", "pl"}), Words{});
    EXPECT_EQ(bash_offers(dir, {"dag", "order", "--target", "mod", ":", "x", "pl"}), Words{"plan.dot"});
    // One graph per command: nothing after it.
    EXPECT_EQ(bash_offers(dir, {"dag", "order", "plan.dot", "pl"}), Words{});
    EXPECT_EQ(bash_offers(dir, {"dag", "walk", "--output", "none", "pl"}), Words{"plan.dot"});
    EXPECT_EQ(bash_offers(dir, {"dag", "completion", "bash", ""}), Words{});
}

// The places BashOffersFilesOnlyWhereTheCommandTakesOne checks, less those
// for bash's splitting of a word at '=' and ':', which fish does not do.
TEST(CliCompletion, FishOffersFilesOnlyWhereTheCommandTakesOne) {
    ScratchDir dir;
    ASSERT_EQ(shell(dir, "command -v fish").status, 0) << "fish is not installed (scripts/install-deps-debian.sh installs it)";
    std::ofstream(dir.path + "/dag.fish") << script(dir, "fish");
    std::ofstream(dir.path + "/plan.dot") << "digraph { a }";

    // A command goes before "--": every command and option was offered after it.
    EXPECT_EQ(fish_offers(dir, "dag wa"), Words{"walk"});
    EXPECT_EQ(fish_offers(dir, "dag -- "), Words{});
    EXPECT_EQ(fish_offers(dir, "dag -- wa"), Words{});
    EXPECT_EQ(fish_offers(dir, "dag -- walk pl"), Words{});
    EXPECT_EQ(fish_offers(dir, "dag -- walk --out"), Words{});
    // A graph file named like a command is not the command.
    EXPECT_EQ(fish_offers(dir, "dag order walk --out"), Words{});
    // FILE, then vertex NAMEs: no file names offered for a NAME.
    EXPECT_EQ(fish_offers(dir, "dag ancestors pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag ancestors plan.dot pl"), Words{});
    EXPECT_EQ(fish_offers(dir, "dag descendants plan.dot a pl"), Words{});
    // An option's value is not an argument; a bare flag takes none.
    EXPECT_EQ(fish_offers(dir, "dag ancestors --from dot pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag ancestors --from=dot pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag ancestors --json pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag ancestors --json plan.dot --from dot pl"), Words{});
    EXPECT_EQ(fish_offers(dir, "dag walk --progress pl"), Words{"plan.dot"});
    // After "--" every word is an argument.
    EXPECT_EQ(fish_offers(dir, "dag ancestors -- pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag ancestors -- --json pl"), Words{});
    // --target takes every name up to the next option, and the last word may still be FILE.
    EXPECT_EQ(fish_offers(dir, "dag order --target a b pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag order --target=a b pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag walk --target a pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag order plan.dot --target a pl"), Words{});
    EXPECT_EQ(fish_offers(dir, "dag order --target a --json pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag order --target a -- pl"), Words{"plan.dot"});
    // One graph per command: nothing after it.
    EXPECT_EQ(fish_offers(dir, "dag order plan.dot pl"), Words{});
    EXPECT_EQ(fish_offers(dir, "dag walk --exec 'echo x' pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag walk --output none plan.dot pl"), Words{});
    // A file an option names is offered wherever the option is.
    EXPECT_EQ(fish_offers(dir, "dag render plan.dot -o pl"), Words{"plan.dot"});
    EXPECT_EQ(fish_offers(dir, "dag walk plan.dot --report pl"), Words{"plan.dot"});
    // The values of options and arguments, and nothing after the last argument.
    EXPECT_EQ(fish_offers(dir, "dag order plan.dot --j"), Words{"--json"});
    EXPECT_EQ(fish_offers(dir, "dag convert plan.dot --to "), (Words{"dot", "json", "mermaid", "text"}));
    EXPECT_EQ(fish_offers(dir, "dag walk --output "), (Words{"grouped", "none", "stream"}));
    EXPECT_EQ(fish_offers(dir, "dag completion "), (Words{"bash", "fish", "zsh"}));
    EXPECT_EQ(fish_offers(dir, "dag completion bash "), Words{});
}

TEST(CliCompletion, ZshCompletesCommandsOptionsAndTheirValues) {
    ScratchDir dir;
    std::ofstream(dir.path + "/_dag") << script(dir, "zsh");
    std::ofstream(dir.path + "/plan.dot") << "digraph { a }";

    EXPECT_EQ(zsh_offers(dir, "dag wa"), Words{"walk"});
    Words commands = listed_commands(dir);
    std::sort(commands.begin(), commands.end());
    EXPECT_EQ(zsh_offers(dir, "dag "), commands);
    // A command goes before "--".
    EXPECT_EQ(zsh_offers(dir, "dag -- "), Words{});
    EXPECT_EQ(zsh_offers(dir, "dag -- wa"), Words{});
    EXPECT_EQ(zsh_offers(dir, "dag walk --out"), Words{"--output"});
    EXPECT_EQ(zsh_offers(dir, "dag walk --output "), (Words{"grouped", "none", "stream"}));
    EXPECT_EQ(zsh_offers(dir, "dag walk --progress=al"), Words{"always"});
    EXPECT_EQ(zsh_offers(dir, "dag order pl"), Words{"plan.dot"});
    EXPECT_EQ(zsh_offers(dir, "dag convert --to "), (Words{"dot", "json", "mermaid", "text"}));
    EXPECT_EQ(zsh_offers(dir, "dag completion "), (Words{"bash", "fish", "zsh"}));
}

TEST(CliCompletion, ZshAndFishScriptsNameEveryCommandAndParse) {
    ScratchDir dir;
    const std::string zsh = script(dir, "zsh");
    const std::string fish = script(dir, "fish");
    EXPECT_EQ(zsh.rfind("#compdef dag\n", 0), 0u) << zsh;
    for (const std::string &command : listed_commands(dir)) {
        EXPECT_NE(zsh.find("            '" + command + ":"), std::string::npos) << command;
        EXPECT_NE(zsh.find("        '" + command + "')\n"), std::string::npos) << command;
        EXPECT_NE(fish.find("complete -c dag -n '__fish_use_subcommand; and not contains -- -- (commandline -opc)' -a '" +
                            command + "'"),
                  std::string::npos)
            << command;
    }
    EXPECT_NE(zsh.find("'--progress=-[Show progress on standard error]::WHEN:(auto always never)'"),
              std::string::npos)
        << zsh;
    EXPECT_NE(fish.find("complete -c dag -n '__dag_command walk' -l output -x -a "
                        "'grouped none stream'"),
              std::string::npos)
        << fish;
    std::ofstream(dir.path + "/_dag") << zsh;
    std::ofstream(dir.path + "/dag.fish") << fish;
    // Read, not run, by each shell that is installed (scripts/install-deps-debian.sh installs both).
    for (const std::string check : {"zsh -n ./_dag", "fish --no-execute ./dag.fish"}) {
        const std::string shell_name = check.substr(0, check.find(' '));
        if (shell(dir, "command -v " + shell_name).status != 0) continue;
        Outcome r = shell(dir, "cd " + cli_test::quoted(dir.path) + " && " + check);
        EXPECT_EQ(r.status, 0) << check << ": " << r.err;
        EXPECT_EQ(r.err, "") << check;
    }
    // fish can also be asked what it would offer.
    if (shell(dir, "command -v fish").status == 0) {
        Outcome r = shell(dir, "cd " + cli_test::quoted(dir.path) +
                                   " && fish -c 'source ./dag.fish; complete -C \"dag wa\"; "
                                   "complete -C \"dag walk --output \"'");
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out.rfind("walk\t", 0), 0u) << r.out;
        EXPECT_NE(r.out.find("\nstream\t"), std::string::npos) << r.out;
    }
}

}  // namespace
