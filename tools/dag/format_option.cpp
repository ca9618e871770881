#include "format_option.hpp"

namespace dagcli {

CLI::Option *add_format_option(CLI::App &command, const std::string &name, dag_format &format,
                               const std::vector<dag_format> &choices,
                               const std::string &description) {
    std::vector<std::string> names;
    for (dag_format choice : choices) names.emplace_back(dag_format_name(choice));
    auto set = [&format, choices](const std::string &value) {
        for (dag_format choice : choices)
            if (value == dag_format_name(choice)) format = choice;
    };
    return command.add_option_function<std::string>(name, set, description)
        ->check(CLI::IsMember(names))
        ->type_name("FORMAT");
}

}  // namespace dagcli
