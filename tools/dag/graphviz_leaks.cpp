// Under AddressSanitizer: the memory that Graphviz's layout library and the
// font libraries its renderers load (fontconfig, pango) keep until the
// program exits, as caches or as Graphviz 2.42's label leaks, which
// LeakSanitizer would report at every `dag render`. Those libraries have no
// frame pointers, so a leak's stack stops at the library that allocated it:
// the suppressions name libraries. libcgraph, which libdag's own DOT reader
// uses, is not among them.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DAG_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(DAG_ADDRESS_SANITIZER)
extern "C" const char *__lsan_default_suppressions() {
    return "leak:libgvc.so\n"
           "leak:libgvplugin_pango.so\n"
           "leak:libpango\n"
           "leak:libfontconfig.so\n";
}
#endif
