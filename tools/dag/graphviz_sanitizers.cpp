// What the sanitizers must not report from the libraries `dag render` loads,
// which are not built with them: Graphviz's layout library and the font
// libraries its renderers load (fontconfig, pango, glib).
// LeakSanitizer: memory those libraries keep until the program exits, as
// caches or as Graphviz 2.42's label leaks. They have no frame pointers, so
// a leak's stack stops at the library that allocated it: the suppressions
// name libraries. libcgraph, which libdag's own DOT reader uses, is not among
// them.
// ThreadSanitizer: pango 1.50 starts fontconfig in a thread of its own, and
// the main thread's later reads of the font cache that thread mapped look
// like a race to a tool that sees neither side's locking.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DAG_ADDRESS_SANITIZER 1
#endif
#if __has_feature(thread_sanitizer)
#define DAG_THREAD_SANITIZER 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(DAG_ADDRESS_SANITIZER)
// Quietly: LeakSanitizer would otherwise print which suppressions matched
// on standard error at every exit, into output the tests compare.
extern "C" const char *__lsan_default_options() { return "print_suppressions=0"; }

extern "C" const char *__lsan_default_suppressions() {
    return "leak:libgvc.so\n"
           "leak:libgvplugin_pango.so\n"
           "leak:libpango\n"
           "leak:libfontconfig.so\n";
}
#endif

#if defined(__SANITIZE_THREAD__) || defined(DAG_THREAD_SANITIZER)
extern "C" const char *__tsan_default_suppressions() {
    return "race:libfontconfig.so\n"
           "race:libglib-2.0.so\n"
           "race:libpango\n";
}
#endif
