#include "usage_error.hpp"

#include <cstring>

namespace dagcli {
namespace {

// The deepest command the parser got to: `dag walk --bogus` is walk's error.
const CLI::App *innermost(const CLI::App &app) {
    const CLI::App *at = &app;
    for (;;) {
        const std::vector<const CLI::App *> chosen = at->get_subcommands([](const CLI::App *c) { return c->parsed(); });
        if (chosen.empty()) return at;
        at = chosen.front();
    }
}

std::string command_path(const CLI::App *command) {
    std::string path;
    for (; command; command = command->get_parent())
        path = command->get_name() + (path.empty() ? "" : " ") + path;
    return path;
}

std::string command_names(const CLI::App &app) {
    std::string names;
    for (const CLI::App *command : app.get_subcommands([](const CLI::App *) { return true; }))
        names += (names.empty() ? "" : ", ") + command->get_name();
    return names;
}

// What made CLI11 find FILE or NAME missing when the user gave one, for the
// message: a selection option took every word after it, the file too, or a
// name that begins with '-' was taken for an option.
std::string missing_argument_hint(const CLI::App &command, const CLI::ParseError &error, int argc, char **argv) {
    if (!dynamic_cast<const CLI::RequiredError *>(&error)) return {};
    const std::string what = error.what();
    std::string selection;
    for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        const std::string option = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
        if ((option == "--target" || option == "--exclude") && command.get_option_no_throw(option) &&
            command.get_option_no_throw(option)->count() > 0)
            selection = option;
    }
    int dashes = 1;
    while (dashes < argc && std::strcmp(argv[dashes], "--") != 0) ++dashes;
    if (what.rfind("FILE", 0) == 0 && !selection.empty() && dashes < argc) {
        // The names were ended: the word after '--' that went missing was
        // read as an option, as '--' lets options follow the names.
        for (int i = dashes + 1; i < argc; ++i)
            if (argv[i][0] == '-' && argv[i][1] != '\0' &&
                !command.get_option_no_throw(std::string(argv[i]).substr(0, std::string(argv[i]).find('='))))
                return std::string(" ('--' ended the names of ") + selection + ", and '" + argv[i] +
                       "' after it was read as an option: write a FILE that begins with '-' as './" + argv[i] + "')";
    }
    if (what.rfind("FILE", 0) == 0 && !selection.empty())
        return " (" + selection + " took every word after it as a vertex name, FILE too: give FILE first, as in '" +
               command_path(&command) + " FILE " + selection + " NAME...', or end the names with '--')";
    bool after_command = false;
    for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        const std::string word = argv[i];
        if (word == command.get_name()) after_command = true;
        if (after_command && word.size() > 1 && word[0] == '-' &&
            command.get_option_no_throw(word.substr(0, word.find('='))) == nullptr) {
            if (what.rfind("FILE", 0) == 0)
                return " (a FILE that begins with '-' goes after '--', as in '" + command_path(&command) + " -- " +
                       word + "', or is written './" + word + "')";
            return " (a NAME that begins with '-' goes after '--', as in '" + command_path(&command) +
                   " FILE -- " + word + "')";
        }
    }
    return {};
}

// After a '--' that ends no names, every word is an argument: an option of
// the command there was not read as one (`dag render -- -x.dot -o out.svg`),
// whatever CLI11 then finds wrong (an option "required", words "not
// expected").
std::string option_after_dashes_hint(const CLI::App &command, int argc, char **argv) {
    int i = 1;
    for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
        if (std::strcmp(argv[i], "--target") == 0 || std::strcmp(argv[i], "--exclude") == 0) return {};
    for (++i; i < argc; ++i) {
        const std::string word = argv[i];
        if (word.size() > 1 && word[0] == '-' && command.get_option_no_throw(word.substr(0, word.find('='))))
            return " ('" + word + "' comes after '--', where every word is an argument: options go before '--', " +
                   "as in '" + command_path(&command) + " " + word + " ... -- FILE')";
    }
    return {};
}

}  // namespace

std::string usage_error(const CLI::App &app, const CLI::ParseError &error, int argc, char **argv) {
    // An unknown option before the command is the top level's, whatever
    // CLI11 made of what follows (`dag --bogus validate` read as validate's
    // "FILE is required"). The top level has flags only, so its options end
    // at the first word: what follows a mistyped command is that command's.
    for (int i = 1; i < argc && argv[i][0] == '-'; ++i) {
        const std::string word = argv[i];
        const std::string option = word.substr(0, word.find('='));
        if (word.size() > 1 && option != "--" && app.get_option_no_throw(option) == nullptr)
            return "dag: unknown option '" + option + "'\nRun 'dag --help' for usage.\n";
    }
    // After '--' every word is an argument, a command's name too: CLI11
    // then said "dag validate: A subcommand is required" to `dag -- validate`.
    for (int i = 1; i < argc && argv[i][0] == '-'; ++i)
        if (std::strcmp(argv[i], "--") == 0)
            return "dag: the command goes before '--' (commands: " + command_names(app) +
                   ")\nRun 'dag --help' for usage.\n";
    const CLI::App *command = innermost(app);
    if (command != &app) {
        std::string hint = missing_argument_hint(*command, error, argc, argv);
        if (hint.empty()) hint = option_after_dashes_hint(*command, argc, argv);
        return command_path(command) + ": " + error.what() + hint + "\nRun '" + command_path(command) +
               " --help' for usage.\n";
    }
    // CLI11 says "A subcommand is required" when none was given and when
    // the first word is not one: say which.
    for (int i = 1; i < argc; ++i)
        if (argv[i][0] != '-')
            return std::string("dag: unknown command '") + argv[i] + "' (commands: " + command_names(app) +
                   ")\nRun 'dag --help' for usage.\n";
    const std::string what = dynamic_cast<const CLI::RequiredError *>(&error)
                                 ? "a command is required (commands: " + command_names(app) + ")"
                                 : std::string(error.what());
    return "dag: " + what + "\nRun 'dag --help' for usage.\n";
}

}  // namespace dagcli
