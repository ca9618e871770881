#include "help_text.hpp"

namespace dagcli {
namespace {

bool takes_value_after_equals(const CLI::Option *option) { return option->get_option_text().rfind("[=", 0) == 0; }

class Formatter : public CLI::Formatter {
  public:
    // A flag whose value may follow "=" (--progress[=WHEN]) shows that
    // spelling, not CLI11's "--progress{always} [=WHEN]".
    std::string make_option_name(const CLI::Option *option, bool positional) const override {
        std::string name = CLI::Formatter::make_option_name(option, positional);
        if (!takes_value_after_equals(option)) return name;
        for (size_t open = name.find('{'); open != std::string::npos; open = name.find('{'))
            name.erase(open, name.find('}', open) + 1 - open);
        return name + option->get_option_text();
    }
    std::string make_option_opts(const CLI::Option *option) const override {
        return takes_value_after_equals(option) ? "" : CLI::Formatter::make_option_opts(option);
    }

    std::string make_footer(const CLI::App *app) const override {
        std::string footer = CLI::Formatter::make_footer(app);
        if (app->get_parent() == nullptr) return footer;
        const std::string program = CLI::Formatter::make_footer(app->get_parent());
        if (footer.empty() || program.empty()) return footer + program;
        return footer + "\n" + program;
    }
};

}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter() { return std::make_shared<Formatter>(); }

void set_help(CLI::App &command, const std::string &details, const std::vector<std::string> &example) {
    std::string footer = details.empty() ? "" : details + "\n\n";
    footer += "Example:";
    for (const std::string &line : example) footer += "\n  " + line;
    command.footer(footer);
}

}  // namespace dagcli
