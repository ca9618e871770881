#include "bracketed_arguments.hpp"

namespace dagcli {

namespace {

// Appended to "[...]": CLI11 splits only a value that ends in ']'. An
// argument that is "[...]" followed by marks already gets one more, so
// that taking one off gives back every argument as it was written.
constexpr char mark = '\x1f';

bool marked_form(const std::string &s, std::size_t marks) {
    const std::size_t end = s.find_last_not_of(mark);
    return s.size() >= 2 && s.front() == '[' && end != std::string::npos && s[end] == ']' &&
           s.size() - end - 1 >= marks;
}

// `--option=[...]`, before a `--` that ends the options: CLI11 reads the
// value after the '=' as it reads a separate argument.
bool option_with_marked_form(const std::string &s, bool options_ended) {
    const std::size_t equals = s.find('=');
    return !options_ended && s.rfind("--", 0) == 0 && s.size() > 2 && equals != std::string::npos &&
           marked_form(s.substr(equals + 1), 0);
}

}  // namespace

BracketedArguments::BracketedArguments(int argc, char **argv) : arguments_(argv, argv + argc) {
    bool options_ended = false;
    for (std::size_t i = 1; i < arguments_.size(); ++i) {
        if (marked_form(arguments_[i], 0) || option_with_marked_form(arguments_[i], options_ended))
            arguments_[i] += mark;
        options_ended = options_ended || arguments_[i] == "--";
    }
    for (const std::string &argument : arguments_) pointers_.push_back(argument.c_str());
}

void unmark_bracketed_arguments(CLI::App &app) {
    const CLI::Validator unmark(
        [](std::string &value) {
            if (marked_form(value, 1)) value.pop_back();
            return std::string();
        },
        "", "");
    for (CLI::Option *option : app.get_options()) option->transform(unmark);
    for (CLI::App *command : app.get_subcommands([](CLI::App *) { return true; }))
        unmark_bracketed_arguments(*command);
}

}  // namespace dagcli
