#include "cli_model.hpp"

#include <sstream>

namespace dagcli {
namespace {

// CLI11 appends each check's description to the type name: "WHEN:{auto,always,never}",
// "MODE:{grouped,none,stream}" (named_values). The first braces list the
// accepted words (before "->", what a transform maps them to).
std::vector<std::string> choices_of(const std::string &type_name) {
    std::vector<std::string> choices;
    const size_t open = type_name.find('{');
    const size_t close = type_name.find('}', open);
    if (open == std::string::npos || close == std::string::npos) return choices;
    std::istringstream items(type_name.substr(open + 1, close - open - 1));
    for (std::string item; std::getline(items, item, ',');)
        choices.push_back(item.substr(0, item.find("->")));
    return choices;
}

// The name alone, without what CLI11 appended ("FILE:{...}" -> "FILE").
std::string value_name(const std::string &type_name) { return type_name.substr(0, type_name.find(':')); }

// The value names of options and arguments that take a path: the graph or
// plan read (FILE), a picture written (OUT), a walk's report read (REPORT).
bool names_a_file(const std::string &value) { return value == "FILE" || value == "OUT" || value == "REPORT"; }

OptionModel option_model(const CLI::Option &option) {
    OptionModel model;
    for (const std::string &name : option.get_snames()) model.names.push_back("-" + name);
    for (const std::string &name : option.get_lnames()) model.names.push_back("--" + name);
    model.description = option.get_description();
    model.choices = choices_of(option.get_type_name());
    if (option.get_expected_max() > 0) {
        const std::string type = option.get_type_name();
        model.value = value_name(type);
        // A repeatable option that takes one word each time (--pool) is not many.
        model.many = option.get_expected_max() > 1 && option.get_allow_extra_args();
        model.file = names_a_file(model.value);
        if (const size_t colon = type.find(':'); colon != std::string::npos && model.choices.empty())
            model.accepts = type.substr(colon + 1);
        model.default_value = option.get_default_str();
        model.required = option.get_required();
    } else if (!model.choices.empty()) {
        model.value_after_equals = true;
        model.value = "WHEN";
        const std::string &text = option.get_option_text();
        if (text.rfind("[=", 0) == 0 && text.size() > 3) model.value = text.substr(2, text.size() - 3);
    }
    return model;
}

std::vector<OptionModel> options_of(CLI::App &app, std::vector<PositionalModel> *positionals) {
    std::vector<OptionModel> options;
    for (const CLI::Option *option : app.get_options()) {
        // An empty group hides an option from the help; it stays hidden here.
        if (option->get_group().empty()) continue;
        if (option->get_positional()) {
            if (positionals)
                positionals->push_back({option->get_name(true, false), option->get_description(),
                                        option->get_expected_max() > 1,
                                        names_a_file(option->get_name(true, false)),
                                        choices_of(option->get_type_name())});
            continue;
        }
        options.push_back(option_model(*option));
    }
    return options;
}

}  // namespace

std::string short_description(const std::string &description) {
    std::string text = description.substr(0, description.find_first_of(":;("));
    while (!text.empty() && (text.back() == ' ' || text.back() == ',')) text.pop_back();
    return text;
}

ProgramModel program_model(CLI::App &app) {
    ProgramModel program{app.get_name(), app.get_description(), app.get_footer(), options_of(app, nullptr), {}};
    for (CLI::App *command : app.get_subcommands([](CLI::App *sub) { return !sub->get_group().empty(); })) {
        CommandModel model{command->get_name(), command->get_description(), command->get_footer(), {}, {}};
        model.options = options_of(*command, &model.positionals);
        program.commands.push_back(std::move(model));
    }
    return program;
}

}  // namespace dagcli
