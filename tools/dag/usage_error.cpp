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
    const CLI::App *command = innermost(app);
    if (command != &app)
        return command_path(command) + ": " + error.what() + "\nRun '" + command_path(command) +
               " --help' for usage.\n";
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
