// `lmroof` under an address-space limit (`ulimit -v`, RLIMIT_AS): one line and exit 2,
// never a spin before main (issue 47 #19).
//
// OpenBLAS starts in a constructor (gotoblas_init) that runs before main and allocates
// one buffer per thread it will use (blas_thread_init -> blas_memory_alloc: malloc of
// 134221824 bytes, seen under gdb in the spinning process, i.e. its x86_64 BUFFER_SIZE
// of 128 MiB plus alignment). When malloc fails it tries again, forever, at 100% CPU,
// and nothing in main can stop it. An executable's .preinit_array runs before any shared
// library's constructor, and every library is mapped by then, so:
//   1. with a finite limit, the address space start-up needs is reserved there and
//      released at once; when it does not fit, one line says so and the process exits 2;
//   2. a watchdog alarm is armed there and disarmed by this executable's own constructor,
//      which runs after every library's: should a start-up hang anyway (a BLAS built
//      with a larger buffer, more threads than counted), it ends in one line too.
// Without a limit neither happens.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// One OpenBLAS start-up buffer: 128 MiB + the 4 KiB and alignment it adds (the malloc
// above), rounded up to 130 MiB.
constexpr unsigned long long kBlasBufferBytes = 130ull << 20;
// The rest of start-up beyond the libraries and the BLAS buffers, besides the thread
// stacks counted apart: the allocator's and the C++ runtime's first pages. Measured on
// the 2-core development machine (OpenBLAS 0.3.21, OpenMP build, `ulimit -s` 8 MiB,
// 2026-12-07): `lmroof --version` without this guard spun at a limit of 310000 kB or
// less, aborted on a thread it could not start at 315000-320000 kB and ran from
// 325000 kB; the libraries mapped at .preinit_array were about 42 MiB, so start-up
// needed about 24 MiB beyond the two buffers, two 8 MiB stacks among them. 16 MiB
// more than the stacks keeps a margin over that and refuses few limits that would run.
constexpr unsigned long long kStartupHeadroomBytes = 16ull << 20;
// A thread's stack when RLIMIT_STACK is unlimited (glibc then takes its own default;
// 8 MiB is the usual `ulimit -s` and at least that default on x86_64 and aarch64).
constexpr unsigned long long kDefaultStackBytes = 8ull << 20;
// Start-up takes milliseconds; a minute without reaching main under a limit is a hang.
constexpr unsigned kWatchdogSeconds = 60;

// A positive whole number from the environment, 0 when unset or not one.
long env_count(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);  // OMP_NUM_THREADS may be a list: its first
  return n > 0 && (*end == '\0' || *end == ',') ? n : 0;
}

// The threads OpenBLAS starts with, one buffer each, and never more than the CPUs this
// process may run on. The OpenMP build lmroof links (cmake/Dependencies.cmake) counts
// omp_get_max_threads(): OMP_NUM_THREADS, else the CPUs (OPENBLAS_NUM_THREADS=1 alone
// still gave two buffers on 2 CPUs under strace); a pthreads build counts
// OPENBLAS_NUM_THREADS, else GOTO_NUM_THREADS, else OMP_NUM_THREADS. The larger of the
// two, so that whichever build is loaded, the reservation is not short of its buffers.
long blas_startup_threads() {
  cpu_set_t set;
  long cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1) cpus = 1;
  const long omp = env_count("OMP_NUM_THREADS");
  long pthreads = env_count("OPENBLAS_NUM_THREADS");
  if (!pthreads) pthreads = env_count("GOTO_NUM_THREADS");
  if (!pthreads) pthreads = omp;
  const auto capped = [cpus](long n) { return n > 0 && n < cpus ? n : cpus; };
  return std::max(capped(omp), capped(pthreads));
}

// The stack each thread started before or with main reserves (glibc takes RLIMIT_STACK).
unsigned long long thread_stack_bytes() {
  rlimit r{};
  return getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? r.rlim_cur : kDefaultStackBytes;
}

void say(const char* line) {
  const ssize_t ignored = ::write(STDERR_FILENO, line, std::strlen(line));
  (void)ignored;
}

unsigned long long limit_kb() {
  rlimit r{};
  return getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? r.rlim_cur / 1024 : 0;
}

void on_watchdog(int) {
  char line[320];
  std::snprintf(line, sizeof(line),
                "lmroof: error: start-up did not reach main in %u s under the address-space limit (ulimit -v %llu kB): "
                "the BLAS library is retrying an allocation it cannot get; raise or remove the limit\n",
                kWatchdogSeconds, limit_kb());
  say(line);
  _exit(2);
}

void check_address_space(int, char**, char**) {
  const unsigned long long kb = limit_kb();
  if (!kb) return;
  const long threads = blas_startup_threads();
  // Per thread: its BLAS buffer, and the stack of an OpenMP worker or (for the first)
  // lmroof's signal-waiting thread (analysis/io/interrupt_cleanup).
  const unsigned long long need =
      static_cast<unsigned long long>(threads) * (kBlasBufferBytes + thread_stack_bytes()) + kStartupHeadroomBytes;
  // PROT_NONE and unreserved: nothing is touched, but the mapping counts against RLIMIT_AS.
  void* probe = mmap(nullptr, need, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (probe == MAP_FAILED) {
    char line[400];
    std::snprintf(line, sizeof(line),
                  "lmroof: error: the address-space limit (ulimit -v %llu kB) leaves no room for start-up, which "
                  "needs %llu MiB beyond the libraries (the BLAS library takes %llu MiB, and a thread stack, for each of its %ld "
                  "thread(s) before main); raise or remove the limit\n",
                  kb, need >> 20, kBlasBufferBytes >> 20, threads);
    say(line);
    _exit(2);
  }
  munmap(probe, need);
  struct sigaction action{};
  action.sa_handler = on_watchdog;
  sigaction(SIGALRM, &action, nullptr);
  alarm(kWatchdogSeconds);
}

// Every shared library's constructor has run: start-up is over.
__attribute__((constructor)) void disarm_watchdog() {
  if (!limit_kb()) return;
  alarm(0);
  signal(SIGALRM, SIG_DFL);
}

}  // namespace

// Runs before any shared library's constructor (the executable's .preinit_array).
__attribute__((section(".preinit_array"), used)) static void (*lmroof_check_address_space)(int, char**, char**) =
    check_address_space;
