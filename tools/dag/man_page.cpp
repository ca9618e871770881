#include "man_page.hpp"
#include "standard_output.hpp"

#include <cctype>
#include <cstdio>
#include <sstream>
#include <vector>

namespace dagcli {
namespace {

// Text for roff: a backslash is an escape, "-" would be a hyphen where an
// option needs a minus, and a line starting with "." or "'" a request.
std::string roff(const std::string &text) {
    std::string result;
    for (char c : text) {
        if (c == '\\')
            result += "\\e";
        else if (c == '-')
            result += "\\-";
        else
            result += c;
    }
    if (!result.empty() && (result[0] == '.' || result[0] == '\'')) result.insert(0, "\\&");
    return result;
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

// Help text as man paragraphs: a blank line starts a paragraph, indented
// lines (an example's commands and output) are kept as they are, the rest
// is filled.
std::string paragraphs(const std::string &text) {
    std::string page = ".PP\n";
    bool literal = false;
    for (const std::string &line : lines_of(text)) {
        const bool indented = line.rfind("  ", 0) == 0;
        if (literal && !indented) {
            page += ".fi\n.RE\n";
            literal = false;
        }
        if (line.empty()) {
            page += ".PP\n";
        } else if (indented) {
            if (!literal) page += ".RS 4\n.nf\n";
            literal = true;
            page += roff(line.substr(2)) + "\n";
        } else {
            page += roff(line) + "\n";
        }
    }
    if (literal) page += ".fi\n.RE\n";
    return page;
}

std::string option_entry(const OptionModel &option) {
    std::string names;
    for (const std::string &name : option.names) names += (names.empty() ? "" : ", ") + ("\\fB" + roff(name) + "\\fR");
    if (option.value_after_equals)
        names += "[=\\fI" + roff(option.value) + "\\fR]";
    else if (!option.value.empty())
        names += " \\fI" + roff(option.value) + "\\fR" + (option.many ? " ..." : "");
    // What --help shows beside the option: its values, default and whether
    // it must be given.
    std::string details;
    if (!option.value.empty() && !option.value_after_equals && !option.choices.empty()) {
        details += " One of:";
        for (size_t i = 0; i < option.choices.size(); ++i)
            details += std::string(i ? ", " : " ") + "\\fB" + roff(option.choices[i]) + "\\fR";
        details += ".";
    }
    if (!option.accepts.empty()) details += " Takes " + roff(option.accepts) + ".";
    if (!option.default_value.empty()) details += " Default: " + roff(option.default_value) + ".";
    if (option.required) details += " Required.";
    std::string description = roff(option.description);
    if (!details.empty() && !description.empty() && description.back() != '.') description += '.';
    return ".TP\n" + names + "\n" + description + details + "\n";
}

std::string usage(const CommandModel &command) {
    std::string text = "dag " + command.name + (command.options.empty() ? "" : " [OPTIONS]");
    for (const PositionalModel &positional : command.positionals)
        text += " " + positional.name + (positional.many ? "..." : "");
    return text;
}

// "Check, order ... semantics." -> "check, order ... semantics", for NAME.
std::string summary(const std::string &description) {
    std::string line = description.substr(0, description.find('\n'));
    if (!line.empty() && line.back() == '.') line.pop_back();
    if (!line.empty()) line[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(line[0])));
    return line;
}

}  // namespace

std::string man_page(const ProgramModel &program, const std::string &version) {
    std::string page = ".\\\" dag(1), written by `dag --man` from the program's help text.\n"
                       ".TH DAG 1 \"\" \"" + roff(version) + "\" \"User Commands\"\n"
                       ".SH NAME\n"
                       "dag \\- " + roff(summary(program.description)) + "\n"
                       ".SH SYNOPSIS\n"
                       ".B dag\n"
                       ".I COMMAND\n"
                       "[\\fIOPTIONS\\fR] [\\fIFILE\\fR] [\\fIARGUMENTS\\fR]\n"
                       ".SH DESCRIPTION\n" + paragraphs(program.description) +
                       ".SH OPTIONS\n";
    for (const OptionModel &option : program.options) page += option_entry(option);
    page += ".SH COMMANDS\n";
    for (const CommandModel &command : program.commands) {
        page += ".SS \"" + roff(usage(command)) + "\"\n" + paragraphs(command.description);
        for (const PositionalModel &positional : command.positionals)
            page += ".TP\n\\fI" + roff(positional.name) + "\\fR\n" + roff(positional.description) + "\n";
        for (const OptionModel &option : command.options) page += option_entry(option);
        if (!command.footer.empty()) page += paragraphs(command.footer);
    }
    page += ".SH \"EXIT STATUS\"\n" + paragraphs(program.footer);
    return page;
}

void add_man_flag(CLI::App &app, const std::string &version) {
    app.add_flag_callback(
           "--man",
           [&app, version] {
               print(man_page(program_model(app), version));
               throw CLI::Success();
           },
           "Print the man page")
        ->group("");
}

}  // namespace dagcli
