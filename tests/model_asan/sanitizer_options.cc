// Any undefined behaviour in model/ fails the test run instead of printing a
// warning and carrying on.
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }
extern "C" const char* __asan_default_options() { return "detect_leaks=1"; }
