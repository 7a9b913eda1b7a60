// Deterministic mutation fuzzing for the sanitized tests: a seeded generator,
// byte-level mutations of a seed corpus, and a loop that runs the iterations
// in a child process, so that a crash or a sanitizer report ends one
// iteration, not the test: the loop records it and goes on with the next.
//
// Iteration i derives its input from (seed, i) alone, so any finding replays
// on its own: GDS_FUZZ_ONLY=i runs that iteration in the test process (under
// a debugger, say). GDS_FUZZ_ITERATIONS changes the count (a longer run finds
// more). A test runs a fixed number of iterations, never "as many as fit in
// N seconds": what it covers does not depend on the machine's speed.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <sanitizer/lsan_interface.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gds::fuzz {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed ? seed : 0x9e3779b97f4a7c15ULL) {}
  std::uint64_t next() {  // xorshift64*
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545f4914f6cdd1dULL;
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
  bool oneIn(std::size_t n) { return below(n) == 0; }

 private:
  std::uint64_t s_;
};

// Values that break size and index arithmetic, as little-endian bytes.
inline std::string interestingBytes(Rng& rng) {
  static const std::uint64_t kValues[] = {0,          1,          0x7f,       0x80,       0xff,
                                          0x7fff,     0x8000,     0xffff,     0x7fffffff, 0x80000000,
                                          0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL, 0xffffffffffffffffULL};
  const std::uint64_t v = kValues[rng.below(sizeof kValues / sizeof kValues[0])];
  const std::size_t width = std::size_t{1} << rng.below(4);  // 1, 2, 4 or 8 bytes
  std::string out(width, '\0');
  for (std::size_t i = 0; i < width; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// One to four byte-level edits of a random seed: bit flips, truncation,
// splices with another seed, random bytes, duplicated chunks and boundary
// integers written over the bytes (sizes, counts, dimensions).
inline std::string mutateBytes(const std::vector<std::string>& corpus, Rng& rng) {
  std::string s = corpus[rng.below(corpus.size())];
  const int edits = 1 + static_cast<int>(rng.below(4));
  for (int k = 0; k < edits; ++k) {
    if (s.empty()) s.push_back(static_cast<char>(rng.next()));
    switch (rng.below(7)) {
      case 0:
        for (std::size_t f = 0, n = 1 + rng.below(8); f < n; ++f) s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
        break;
      case 1: s.resize(rng.below(s.size() + 1)); break;
      case 2: {
        const std::string& other = corpus[rng.below(corpus.size())];
        s = s.substr(0, rng.below(s.size() + 1)) + other.substr(rng.below(other.size() + 1), rng.below(4096));
        break;
      }
      case 3:
        for (std::size_t f = 0, n = 1 + rng.below(16); f < n; ++f) s[rng.below(s.size())] = static_cast<char>(rng.next());
        break;
      case 4: {
        const std::size_t at = rng.below(s.size());
        const std::size_t len = std::min<std::size_t>(rng.below(512), s.size() - at);
        s.insert(rng.below(s.size() + 1), s.substr(at, len));
        break;
      }
      default: {
        // Headers hold the sizes: aim there more often than at random.
        const std::size_t limit = rng.oneIn(2) ? std::min<std::size_t>(s.size(), 64) : s.size();
        const std::string v = interestingBytes(rng);
        const std::size_t at = rng.below(limit);
        s.replace(at, std::min(v.size(), s.size() - at), v);
        break;
      }
    }
  }
  return s;
}

inline double envDouble(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atof(v) : fallback;
}

// The generator of iteration i: independent of what ran before it.
inline Rng iterationRng(std::uint64_t seed, long i) {
  return Rng(seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(i) * 0xbf58476d1ce4e5b9ULL + 1);
}

struct Finding {
  long iteration = -1;
  std::string kind;    // "heap-buffer-overflow", "undefined behaviour", "unbounded allocation", ...
  std::string report;  // the child's standard error (its beginning)
};

struct FuzzOutcome {
  long requested = 0;   // the iterations asked for
  long iterations = 0;  // run, including those that crashed
  std::vector<Finding> findings;
  double seconds = 0;
  // Findings other than unbounded allocations, as text for a test failure.
  std::string failures() const {
    std::string out;
    for (const Finding& f : findings)
      if (f.kind != "unbounded allocation")
        out += "iteration " + std::to_string(f.iteration) + ": " + f.kind + "\n" + f.report + "\n";
    return out;
  }
  long count(const std::string& kind) const {
    return static_cast<long>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.kind == kind; }));
  }
};

// The longest one iteration may take under the sanitizers before it counts
// as a hang (the slowest seen is well under a second).
constexpr unsigned kIterationSeconds = 30;

// What ended a child, from its standard error and wait status. An
// allocation the sanitizer refuses as too large (max_allocation_size_mb) is
// "unbounded allocation": a size taken from the input without a check.
inline std::string classify(const std::string& err, int status) {
  if (err.find("allocation-size-too-big") != std::string::npos || err.find("out-of-memory") != std::string::npos ||
      err.find("exceeds maximum supported size") != std::string::npos ||
      err.find("out of memory trying to allocate") != std::string::npos || err.find("std::bad_alloc") != std::string::npos)
    return "unbounded allocation";
  const std::string asan = "ERROR: AddressSanitizer: ";
  if (auto at = err.find(asan); at != std::string::npos) {
    std::string kind = err.substr(at + asan.size());
    return kind.substr(0, kind.find_first_of(" \n"));
  }
  if (err.find("ERROR: LeakSanitizer") != std::string::npos) return "leak";
  if (err.find("runtime error: ") != std::string::npos) return "undefined behaviour";
  if (err.find("terminate called") != std::string::npos) return "uncaught exception";
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) return "hang";
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "exit code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// Runs body(i) for i = 0 .. iterations-1 in child processes (see the top of
// this file). The test process must not have started threads.
template <typename Body>
FuzzOutcome forkedLoop(const char* what, long iterations, Body body) {
  iterations = static_cast<long>(envDouble("GDS_FUZZ_ITERATIONS", static_cast<double>(iterations)));
  FuzzOutcome outcome;
  outcome.requested = iterations;
  if (const char* only = std::getenv("GDS_FUZZ_ONLY"); only && *only) {
    body(std::atol(only));
    outcome.iterations = 1;
    return outcome;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  char err_template[] = "/tmp/gdstudio-fuzz-XXXXXX";
  const int err_fd = mkstemp(err_template);
  if (err_fd < 0) return outcome;
  long next = 0;
  while (next < iterations) {
    int progress[2];
    if (pipe(progress) != 0) break;
    std::fflush(nullptr);
    if (ftruncate(err_fd, 0) != 0) break;
    lseek(err_fd, 0, SEEK_SET);
    const pid_t pid = fork();
    if (pid == 0) {
      close(progress[0]);
      dup2(err_fd, 2);
      for (long i = next; i < iterations; ++i) {
        if (write(progress[1], &i, sizeof i) != sizeof i) _exit(120);
        // An iteration that does not end is a finding (a hang), not a test
        // stuck until ctest's timeout: SIGALRM ends the child.
        alarm(kIterationSeconds);
        body(i);
      }
      alarm(0);
      const long done = -1;
      if (write(progress[1], &done, sizeof done) != sizeof done) _exit(120);
      __lsan_do_leak_check();  // a leak ends the child with a report
      std::fflush(nullptr);
      _exit(0);
    }
    close(progress[1]);
    long last = next - 1, value = 0;
    bool finished = false;
    while (read(progress[0], &value, sizeof value) == sizeof value) {
      if (value < 0) finished = true;
      else last = value;
    }
    close(progress[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    outcome.iterations = last + 1;
    if (finished && WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
    std::ifstream in(err_template, std::ios::binary);
    std::stringstream err;
    err << in.rdbuf();
    Finding f;
    f.iteration = finished ? -1 : last;  // -1: at the end (a leak check)
    f.kind = classify(err.str(), status);
    f.report = err.str().substr(0, 6000);
    std::printf("fuzz %s: iteration %ld: %s\n", what, f.iteration, f.kind.c_str());
    outcome.findings.push_back(std::move(f));
    if (finished) break;
    next = last + 1;
  }
  close(err_fd);
  unlink(err_template);
  outcome.seconds = elapsed();
  std::printf("fuzz %s: %ld iterations in %.1f s, %zu findings (%ld unbounded allocations)\n", what, outcome.iterations,
              outcome.seconds, outcome.findings.size(), outcome.count("unbounded allocation"));
  std::fflush(stdout);
  return outcome;
}

// A sanitizer report or crash fails; unbounded allocations are printed.
inline void expectClean(const FuzzOutcome& outcome) {
  EXPECT_EQ(outcome.iterations, outcome.requested);
  EXPECT_EQ(outcome.failures(), "");
  for (const Finding& f : outcome.findings)
    if (f.kind == "unbounded allocation")
      std::printf("unbounded allocation at iteration %ld (replay: GDS_FUZZ_ONLY=%ld):\n%s\n", f.iteration, f.iteration,
                  f.report.substr(0, 1500).c_str());
}

}  // namespace gds::fuzz
