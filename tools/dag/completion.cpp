#include "completion.hpp"

#include <cstdio>
#include <memory>
#include <vector>

#include "help_text.hpp"
#include "standard_output.hpp"

namespace dagcli {
namespace {

// Single quotes for a POSIX shell (and zsh and fish, which read them the same).
std::string single_quoted(const std::string &text) {
    std::string result = "'";
    for (char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return result + "'";
}

std::string joined(const std::vector<std::string> &words, const std::string &separator = " ") {
    std::string text;
    for (const std::string &word : words) text += (text.empty() ? "" : separator) + word;
    return text;
}

std::vector<std::string> option_names(const std::vector<OptionModel> &options) {
    std::vector<std::string> names;
    for (const OptionModel &option : options) names.insert(names.end(), option.names.begin(), option.names.end());
    return names;
}

// The options whose value is the next word (`many` false) or every word up
// to the next option (`many` true): counting a command's arguments skips
// those words. A value only after "=" is part of the option's own word.
std::vector<std::string> value_option_names(const CommandModel &command, bool many) {
    std::vector<std::string> names;
    for (const OptionModel &option : command.options)
        if (!option.value.empty() && !option.value_after_equals && option.many == many)
            names.insert(names.end(), option.names.begin(), option.names.end());
    return names;
}

// A vertex NAME gets nothing: offering file names there would mislead.
std::string bash_positional_action(const PositionalModel &positional) {
    if (!positional.choices.empty())
        return "COMPREPLY=($(compgen -W " + single_quoted(joined(positional.choices)) + " -- \"$cur\"))";
    return positional.file ? "_dag_files" : ":";
}

// A bash `case` branch: the words an option's value may be.
std::string bash_value_branch(const OptionModel &option) {
    std::string branch = "        " + joined(option.names, "|") + ")\n            ";
    if (!option.choices.empty())
        branch += "COMPREPLY=($(compgen -W " + single_quoted(joined(option.choices)) + " -- \"$cur\"))";
    else if (option.file)
        branch += "_dag_files";
    else
        branch += ":";
    return branch + "\n            return ;;\n";
}

std::string bash_command_branch(const CommandModel &command) {
    std::string branch = "    " + single_quoted(command.name) + ")\n";
    std::string values, after_equals;
    for (const OptionModel &option : command.options) {
        if (option.value_after_equals)
            after_equals += bash_value_branch(option);
        else if (!option.value.empty())
            values += bash_value_branch(option);
    }
    if (!values.empty()) branch += "        case $option in\n" + values + "        esac\n";
    if (!after_equals.empty())
        branch += "        [[ $joined ]] && case $option in\n" + after_equals + "        esac\n";
    branch += "        if [[ $cur == -* ]]; then\n            COMPREPLY=($(compgen -W " +
              single_quoted(joined(option_names(command.options))) + " -- \"$cur\"))\n";
    if (!command.positionals.empty()) {
        branch += "        else\n            case $(_dag_positional $i " +
                  single_quoted(joined(value_option_names(command, false))) + " " +
                  single_quoted(joined(value_option_names(command, true))) + ") in\n";
        const size_t count = command.positionals.size();
        for (size_t n = 0; n < count; ++n) {
            const PositionalModel &positional = command.positionals[n];
            // The last one takes every later word when it takes many.
            const std::string pattern = n + 1 == count && positional.many ? "[0-9]*" : std::to_string(n);
            branch += "            " + pattern + ") " + bash_positional_action(positional) + " ;;\n";
        }
        branch += "            esac\n";
    }
    return branch + "        fi ;;\n";
}

// Ready for zsh's _arguments and _describe: inside [...] and after ':'.
std::string zsh_text(const std::string &text) {
    std::string result;
    for (char c : text) {
        if (c == '[' || c == ']' || c == ':' || c == '\\') result += '\\';
        result += c;
    }
    return result;
}

std::string zsh_action(const std::vector<std::string> &choices, bool file) {
    if (!choices.empty()) return "(" + joined(choices) + ")";
    return file ? "_files" : " ";
}

std::string zsh_option_specs(const OptionModel &option) {
    std::string specs;
    for (const std::string &name : option.names) {
        std::string spec = option.many ? "*" + name : name;
        const std::string help = "[" + zsh_text(short_description(option.description)) + "]";
        if (option.value_after_equals)
            spec += "=-" + help + "::" + option.value + ":" + zsh_action(option.choices, false);
        else if (!option.value.empty())
            spec += (name.size() > 2 ? "=" : "") + help + ":" + option.value + ":" +
                    zsh_action(option.choices, option.file);
        else
            spec += help;
        specs += " \\\n                " + single_quoted(spec);
    }
    return specs;
}

// A command goes before "--" (after it, a command's name is an argument,
// which dag refuses): nothing is offered after one (__dag_command).
std::string fish_condition(const std::string &command) {
    return command.empty() ? single_quoted("__fish_use_subcommand; and not contains -- -- (commandline -opc)")
                           : single_quoted("__dag_command " + command);
}

std::string fish_option_lines(const std::string &command, const OptionModel &option) {
    std::string line = "complete -c dag -n " + fish_condition(command);
    for (const std::string &name : option.names)
        line += name.size() > 2 ? " -l " + name.substr(2) : " -s " + name.substr(1);
    // A value only after "=" cannot be told from the next word: fish offers the flag alone.
    if (!option.value.empty() && !option.value_after_equals) {
        if (!option.choices.empty())
            line += " -x -a " + single_quoted(joined(option.choices));
        else if (option.file)
            line += " -r -F";
        else
            line += " -x";
    }
    return line + " -d " + single_quoted(short_description(option.description)) + "\n";
}

// Argument `n` of `command` only, as bash's _dag_positional tells it: files
// offered after the graph, or where a vertex NAME goes, would mislead.
// Option names need no quoting, so double quotes nest in the single ones.
std::string fish_positional_condition(const CommandModel &command, size_t n) {
    // The last one takes every later word when it takes many.
    const bool rest = n + 1 == command.positionals.size() && command.positionals[n].many;
    return single_quoted("__dag_command " + command.name + "; and test (__dag_positional \"" +
                         joined(value_option_names(command, false)) + "\" \"" +
                         joined(value_option_names(command, true)) + "\") " + (rest ? "-ge " : "-eq ") +
                         std::to_string(n));
}

std::string fish_positional_lines(const CommandModel &command) {
    std::string lines;
    for (size_t n = 0; n < command.positionals.size(); ++n) {
        const PositionalModel &positional = command.positionals[n];
        const std::string line = "complete -c dag -n " + fish_positional_condition(command, n);
        if (positional.file)
            lines += line + " -F\n";
        else if (!positional.choices.empty())
            lines += line + " -a " + single_quoted(joined(positional.choices)) + "\n";
    }
    return lines;
}

}  // namespace

std::string bash_completion(const ProgramModel &program) {
    std::vector<std::string> top;
    for (const CommandModel &command : program.commands) top.push_back(command.name);
    for (const std::string &name : option_names(program.options)) top.push_back(name);
    std::string script =
        "# bash completion for dag, written by `dag completion bash`.\n"
        "_dag_files() {\n"
        "    compopt -o filenames 2>/dev/null\n"
        "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "}\n"
        "# Which argument (0, 1, ...) the word being completed is: the words after\n"
        "# the command at $1 that are neither options nor the values of those in $2\n"
        "# (one word) or $3 (every word up to the next option; the last of them may\n"
        "# be the first argument, as dag reads it), or - when it cannot be one.\n"
        "# bash splits a word at = and :, which join what is either side of them.\n"
        "_dag_positional() {\n"
        "    local separate=\" $2 \" many=\" $3 \" n=0 j rest= names= last=-1\n"
        "    for ((j = $1 + 1; j < COMP_CWORD; j++)); do\n"
        "        local word=${COMP_WORDS[j]}\n"
        "        if [[ $rest ]]; then\n"
        "            ((n++)); last=$j\n"
        "        elif [[ $word == -- ]]; then\n"
        "            rest=1 names=\n"
        "        elif [[ $word == = || $word == : ]]; then\n"
        "            ((j++))\n"
        "        elif [[ $word == -* ]]; then\n"
        "            names=\n"
        "            if [[ $many == *\" $word \"* ]]; then\n"
        "                names=1\n"
        "            elif [[ $separate == *\" $word \"* && ${COMP_WORDS[j+1]} != = ]]; then\n"
        "                ((j++))\n"
        "            fi\n"
        "        elif [[ ! $names ]]; then\n"
        "            ((n++)); last=$j\n"
        "        fi\n"
        "    done\n"
        "    # The word before was \":\": this one goes on the argument before it.\n"
        "    [[ ${COMP_WORDS[COMP_CWORD-1]} == : && $last == $((COMP_CWORD - 2)) ]] && ((n--))\n"
        "    if [[ $names ]]; then\n"
        "        ((n == 0)) && echo 0 || echo -\n"
        "    else\n"
        "        echo $n\n"
        "    fi\n"
        "}\n"
        "_dag() {\n"
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "    local option=$prev joined= command= i\n"
        "    # bash splits --name=value at \"=\" into three words.\n"
        "    if [[ $cur == = ]]; then\n"
        "        joined=1 cur=\n"
        "    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then\n"
        "        option=${COMP_WORDS[COMP_CWORD-2]} joined=1\n"
        "    fi\n"
        "    # A command goes before \"--\": nothing is offered after one.\n"
        "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "        case ${COMP_WORDS[i]} in\n"
        "        --) command=--; break ;;\n"
        "        -*) ;;\n"
        "        *) command=${COMP_WORDS[i]}; break ;;\n"
        "        esac\n"
        "    done\n"
        "    COMPREPLY=()\n"
        "    case $command in\n"
        "    '')\n"
        "        COMPREPLY=($(compgen -W " + single_quoted(joined(top)) + " -- \"$cur\")) ;;\n";
    for (const CommandModel &command : program.commands) script += bash_command_branch(command);
    return script + "    esac\n}\ncomplete -F _dag dag\n";
}

std::string zsh_completion(const ProgramModel &program) {
    std::string script =
        "#compdef dag\n"
        "# zsh completion for dag, written by `dag completion zsh`.\n"
        "_dag() {\n"
        "    local curcontext=$curcontext state line\n"
        "    _arguments -C";
    for (const OptionModel &option : program.options) script += zsh_option_specs(option);
    script += " \\\n                '1:command:->command' \\\n                '*::argument:->argument'\n"
              "    case $state in\n"
              "    command)\n"
              "        local -a commands=(\n";
    for (const CommandModel &command : program.commands)
        script += "            " + single_quoted(zsh_text(command.name) + ":" + command.description) + "\n";
    script += "        )\n"
              "        _describe -t commands command commands ;;\n"
              "    argument)\n"
              "        case $words[1] in\n";
    for (const CommandModel &command : program.commands) {
        script += "        " + single_quoted(command.name) + ")\n            _arguments";
        for (const OptionModel &option : command.options) script += zsh_option_specs(option);
        for (const PositionalModel &positional : command.positionals)
            script += " \\\n                " +
                      single_quoted((positional.many ? "*:" : ":") + positional.name + ":" +
                             zsh_action(positional.choices, positional.file));
        script += " ;;\n";
    }
    return script + "        esac ;;\n    esac\n}\n_dag \"$@\"\n";
}

std::string fish_completion(const ProgramModel &program) {
    std::string script =
        "# fish completion for dag, written by `dag completion fish`.\n"
        "# Which argument (0, 1, ...) of its command the word being completed is:\n"
        "# the words after the command that are neither options nor the values of\n"
        "# those in $argv[1] (one word) or $argv[2] (every word up to the next\n"
        "# option; the last of them may be the first argument, as dag reads it),\n"
        "# or -1 when it cannot be one. fish keeps --name=value one word.\n"
        "function __dag_positional\n"
        "    set -l separate (string split ' ' -- $argv[1])\n"
        "    set -l many (string split ' ' -- $argv[2])\n"
        "    set -l n 0\n"
        "    set -l command\n"
        "    set -l skip\n"
        "    set -l rest\n"
        "    set -l names\n"
        "    for word in (commandline -opc)[2..-1]\n"
        "        if set -q skip[1]\n"
        "            set skip\n"
        "        else if not set -q command[1]\n"
        "            string match -q -- '-*' $word; or set command $word\n"
        "        else if set -q rest[1]\n"
        "            set n (math $n + 1)\n"
        "        else if test \"$word\" = --\n"
        "            set rest 1\n"
        "            set names\n"
        "        else if string match -q -- '-*' $word\n"
        "            set names\n"
        "            # --target=a takes the words after it too, as --target a does.\n"
        "            if contains -- (string split -m 1 = -- $word)[1] $many\n"
        "                set names 1\n"
        "            else if contains -- $word $separate\n"
        "                set skip 1\n"
        "            end\n"
        "        else if not set -q names[1]\n"
        "            set n (math $n + 1)\n"
        "        end\n"
        "    end\n"
        "    if set -q names[1]; and test $n -ne 0\n"
        "        echo -1\n"
        "    else\n"
        "        echo $n\n"
        "    end\n"
        "end\n"
        "# Whether the command is $argv[1]: the first word after dag that is not an\n"
        "# option, unless \"--\" comes first (dag refuses a command after it).\n"
        "function __dag_command\n"
        "    for word in (commandline -opc)[2..-1]\n"
        "        test \"$word\" = --; and return 1\n"
        "        string match -q -- '-*' $word; and continue\n"
        "        test \"$word\" = $argv[1]\n"
        "        return\n"
        "    end\n"
        "    return 1\n"
        "end\n"
        "complete -c dag -f\n";
    for (const OptionModel &option : program.options) script += fish_option_lines("", option);
    for (const CommandModel &command : program.commands)
        script += "complete -c dag -n " + fish_condition("") + " -a " + single_quoted(command.name) + " -d " +
                  single_quoted(command.description) + "\n";
    for (const CommandModel &command : program.commands) {
        for (const OptionModel &option : command.options) script += fish_option_lines(command.name, option);
        script += fish_positional_lines(command);
    }
    return script;
}

void add_completion_command(CLI::App &app, int &exit_code) {
    auto shell = std::make_shared<std::string>();
    CLI::App *command = app.add_subcommand("completion", "Print a completion script for bash, zsh or fish");
    command->add_option("SHELL", *shell, "The shell the script is for")
        ->check(CLI::IsMember({"bash", "zsh", "fish"}))
        ->required();
    set_help(*command,
             "bash: add the line below to ~/.bashrc. zsh: write the script to a file named _dag in a\n"
             "directory of $fpath. fish: write it to ~/.config/fish/completions/dag.fish.",
             {"$ source <(dag completion bash)"});
    command->callback([&app, shell, &exit_code] {
        const ProgramModel program = program_model(app);
        const std::string script = *shell == "bash"  ? bash_completion(program)
                                   : *shell == "zsh" ? zsh_completion(program)
                                                     : fish_completion(program);
        print(script);
        exit_code = 0;
    });
}

}  // namespace dagcli
