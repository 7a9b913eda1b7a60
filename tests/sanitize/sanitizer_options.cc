// Defaults for every sanitized executable (the environment's ASAN_OPTIONS,
// UBSAN_OPTIONS and LSAN_OPTIONS still override them).
//
// - exitcode=86: a report is told apart from the program's own errors (exit
//   code 1), also in the CLI tests, which expect exit code 1 from bad input.
// - max_allocation_size_mb: one allocation larger than this is refused
//   instead of paging the machine to death; a test binary may lower it
//   (GDS_MAX_ALLOCATION_MB). With allocator_may_return_null=1, malloc then
//   returns null, as it would in the normal build, so the C libraries
//   (libpng, libjpeg, zlib) report their own failure; operator new cannot
//   return null and ends the process with an out-of-memory report.
// - UBSan halts on its first report (halt_on_error=1) and says where
//   (print_stacktrace=1); its suppressions list the known reports that are
//   being fixed (ubsan_suppressions.txt).
#ifndef GDS_MAX_ALLOCATION_MB
#define GDS_MAX_ALLOCATION_MB "4096"
#endif

extern "C" const char* __asan_default_options() {
  return "exitcode=86:detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1:"
         "detect_stack_use_after_return=1:check_initialization_order=1:max_allocation_size_mb=" GDS_MAX_ALLOCATION_MB;
}
extern "C" const char* __ubsan_default_options() {
  return "exitcode=86:print_stacktrace=1:halt_on_error=1:suppressions=" GDS_UBSAN_SUPPRESSIONS;
}
extern "C" const char* __lsan_default_options() { return "exitcode=86"; }

// Leaks inside system libraries, not in what this program hands them:
// - fontconfig keeps parts of its configuration (parsed when Qt first loads a
//   font) until exit;
// - Graphviz 2.42's dot layout leaks virtual edges it makes for some graphs
//   (new_virtual_edge), although graphview/dot_layout.cc frees every layout
//   and graph (gvFreeLayout, agclose). The fast unwinder stops at libgvc's
//   gmalloc, so the suppression names that library.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libfontconfig.so\n"
         "leak:libgvc.so\n"
         "leak:libgvplugin_dot_layout.so\n";
}
