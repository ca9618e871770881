// What Graphviz says while dag uses it (render's layout and drawing, a DOT
// file read again for an attribute), to be told as dag's own messages
// ("dag: graphviz: ...") or put in its error.
#pragma once

#include <graphviz/cgraph.h>

#include <string>
#include <vector>

namespace dagcli {

// For its lifetime, collects the messages Graphviz reports through cgraph's
// hook (which libdag's DOT reader uses too, and gets back after). Not for
// two at once.
class GraphvizMessages {
  public:
    GraphvizMessages();
    ~GraphvizMessages();
    GraphvizMessages(const GraphvizMessages &) = delete;
    GraphvizMessages &operator=(const GraphvizMessages &) = delete;

    // What was said so far while one is alive, one message a line, with
    // what a PluginMessages kept.
    static std::vector<std::string> lines();

  private:
    agusererrf old_hook_;
    agerrlevel_t old_level_;
};

// For its lifetime, within a GraphvizMessages, what Graphviz's plugins print
// straight to standard error instead (a bitmap too large, scaled down) goes
// to GraphvizMessages::lines(): standard error goes to a file of its own.
// Only around the call that renders: a sanitizer's report of a crash would
// go there too, and be lost.
class PluginMessages {
  public:
    PluginMessages();
    ~PluginMessages();
    PluginMessages(const PluginMessages &) = delete;
    PluginMessages &operator=(const PluginMessages &) = delete;

  private:
    int saved_stderr_ = -1;
};

}  // namespace dagcli
