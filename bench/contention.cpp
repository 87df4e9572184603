#include "bench/contention.h"

#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "analysis/model/schema.h"
#include "analysis/rules/rules.h"

namespace lmroof::bench {

namespace {

// A /proc file kept open and read again from its start (procfs regenerates it on each
// read at offset 0): a few microseconds, where open + read + close costs several times that.
class ProcFile {
 public:
  explicit ProcFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~ProcFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;
  ProcFile(ProcFile&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  bool ok() const { return fd_ >= 0; }
  // The file's text (at most `buffer` bytes of it); false when it cannot be read (a
  // thread that ended).
  bool read(std::string& buffer, size_t limit) const {
    buffer.resize(limit);
    const ssize_t n = ::pread(fd_, buffer.data(), limit, 0);
    if (n <= 0) return false;
    buffer.resize(static_cast<size_t>(n));
    return true;
  }

 private:
  int fd_ = -1;
};

// The OpenMP workers of this process (the team a default parallel region gets, which
// the kernels use), each with its schedstat open. Found once with a parallel region;
// found again when the team's size changes or a worker's file can no longer be read.
class Workers {
 public:
  bool sample(std::vector<std::pair<double, double>>& out) {
    if (files_.empty() || team_ != omp_get_max_threads()) discover();
    out.clear();
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool all = !files_.empty();
      for (const ProcFile& f : files_) {
        double on_cpu = 0, delay = 0;
        if (!f.read(text_, 128) || std::sscanf(text_.c_str(), "%lf %lf", &on_cpu, &delay) != 2) {
          all = false;
          break;
        }
        out.emplace_back(on_cpu, delay);
      }
      if (all) return true;
      out.clear();
      discover();
    }
    return false;
  }

 private:
  void discover() {
    team_ = omp_get_max_threads();
    std::vector<long> tids(static_cast<size_t>(team_), 0);
#pragma omp parallel
    {
      const int i = omp_get_thread_num();
      if (i < static_cast<int>(tids.size())) tids[static_cast<size_t>(i)] = ::syscall(SYS_gettid);
    }
    files_.clear();
    for (long tid : tids) {
      if (tid <= 0) continue;
      ProcFile f("/proc/self/task/" + std::to_string(tid) + "/schedstat");
      if (f.ok()) files_.push_back(std::move(f));
    }
  }
  int team_ = 0;
  std::vector<ProcFile> files_;
  std::string text_;
};

// /proc/stat's first line (all CPUs) and procs_running.
struct MachineTicks {
  double steal = 0, total = 0, runnable = 0;
};

bool read_machine_ticks(const std::string& text, MachineTicks& out) {
  if (text.rfind("cpu ", 0) != 0) return false;
  std::istringstream line(text.substr(4, text.find('\n') - 4));
  double v = 0;
  std::vector<double> fields;
  while (line >> v) fields.push_back(v);
  if (fields.size() < 8) return false;  // user nice system idle iowait irq softirq steal
  // guest and guest_nice (fields 9, 10) are already counted in user and nice.
  out.total = 0;
  for (size_t i = 0; i < 8; ++i) out.total += fields[i];
  out.steal = fields[7];
  if (const auto at = text.find("procs_running "); at != std::string::npos)
    out.runnable = std::strtod(text.c_str() + at + 14, nullptr);
  return true;
}

struct Probes {
  Workers workers;
  ProcFile stat{"/proc/stat"};
  std::string text;
  // /proc/stat grows with the CPU count (a line per CPU, one per interrupt source):
  // read what fits, enough for the first line and procs_running on any machine.
  size_t limit = 1 << 16;
};

Probes& probes() {
  static Probes p;
  return p;
}

bool read_stat(MachineTicks& ticks) {
  Probes& p = probes();
  return p.stat.ok() && p.stat.read(p.text, p.limit) && read_machine_ticks(p.text, ticks);
}

// The process-wide re-timing budget (rules::kContentionRetimeShare).
struct RetimeBudget {
  double timed_s = 0, retimed_s = 0;
};
RetimeBudget& budget() {
  static RetimeBudget b;
  return b;
}

}  // namespace

bool RepetitionShare::contended() const { return measured && rules::is_contended(worst_wait_share, steal_share); }

ContentionSample sample_contention() {
  ContentionSample s;
  MachineTicks ticks;
  const bool machine = read_stat(ticks);
  const bool workers = probes().workers.sample(s.workers);
  s.at = std::chrono::steady_clock::now();
  s.steal_ticks = ticks.steal;
  s.total_ticks = ticks.total;
  s.runnable = ticks.runnable;
  s.valid = machine && workers;
  return s;
}

RepetitionShare share_between(const ContentionSample& before, const ContentionSample& after) {
  RepetitionShare r;
  r.wall_s = std::chrono::duration<double>(after.at - before.at).count();
  if (!before.valid || !after.valid || before.workers.size() != after.workers.size() || !(r.wall_s > 0)) return r;
  r.measured = true;
  const double wall_ns = r.wall_s * 1e9;
  r.least_oncpu_share = 1e300;
  for (size_t i = 0; i < before.workers.size(); ++i) {
    const double on_cpu = std::max(0.0, after.workers[i].first - before.workers[i].first);
    const double delay = std::max(0.0, after.workers[i].second - before.workers[i].second);
    r.worst_wait_share = std::max(r.worst_wait_share, std::min(1.0, delay / wall_ns));
    r.least_oncpu_share = std::min(r.least_oncpu_share, std::min(1.0, on_cpu / wall_ns));
  }
  const double total = after.total_ticks - before.total_ticks;
  r.steal_share = total > 0 ? std::clamp((after.steal_ticks - before.steal_ticks) / total, 0.0, 1.0) : 0.0;
  r.runnable = std::max(before.runnable, after.runnable);
  return r;
}

TimedRepetition time_uncontended(const std::function<double(int attempt)>& repetition) {
  TimedRepetition best;
  RetimeBudget& b = budget();
  for (int attempt = 0;; ++attempt) {
    const ContentionSample before = sample_contention();
    const double seconds = repetition(attempt);
    const RepetitionShare share = share_between(before, sample_contention());
    (attempt == 0 ? b.timed_s : b.retimed_s) += share.wall_s;
    if (attempt == 0 || share.worst_wait_share + share.steal_share < best.share.worst_wait_share + best.share.steal_share) {
      best.seconds = seconds;
      best.share = share;
      best.kept_attempt = attempt;
    }
    best.retimes = attempt;
    const bool budget_left = b.retimed_s + share.wall_s <= rules::kContentionRetimeShare * b.timed_s;
    if (!best.share.contended() || attempt >= rules::kContendedRetimes || !budget_left) return best;
  }
}

void publish_share(benchmark::State& state, const RepetitionShare& share, int retimes) {
  if (!share.measured) return;
  namespace c = model::counter;
  state.counters[std::string(c::kMachineWaitShare)] = benchmark::Counter(share.worst_wait_share);
  state.counters[std::string(c::kMachineOnCpuShare)] = benchmark::Counter(share.least_oncpu_share);
  state.counters[std::string(c::kMachineStealShare)] = benchmark::Counter(share.steal_share);
  state.counters[std::string(c::kMachineRunnable)] = benchmark::Counter(share.runnable);
  state.counters[std::string(c::kMachineRetimes)] = benchmark::Counter(retimes);
  state.counters[std::string(c::kMachineContended)] = benchmark::Counter(share.contended() ? 1 : 0);
}

namespace {

// A process's comm as results.json may hold it: any process may name itself anything
// (prctl PR_SET_NAME), bytes that are not printable ASCII included, and its name must
// neither break the JSON (UTF-8) nor the one line it is shown on.
std::string printable(std::string name) {
  for (char& ch : name)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  return name;
}

// pid -> {comm, utime + stime in clock ticks} of every process but this one.
std::map<int, std::pair<std::string, double>> process_ticks() {
  std::map<int, std::pair<std::string, double>> out;
  DIR* dir = ::opendir("/proc");
  if (!dir) return out;
  const int self = static_cast<int>(::getpid());
  std::string text;
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    std::ifstream in(std::string("/proc/") + entry->d_name + "/stat");
    if (!std::getline(in, text)) continue;  // it ended meanwhile
    // "pid (comm) state ...": comm may hold spaces and parentheses; it ends at the last ')'.
    const auto open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    std::istringstream rest(text.substr(close + 1));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15: utime, stime
      if (i == 14) utime = std::strtod(field.c_str(), nullptr);
      if (i == 15) stime = std::strtod(field.c_str(), nullptr);
    }
    out[static_cast<int>(pid)] = {printable(text.substr(open + 1, close - open - 1)), utime + stime};
  }
  ::closedir(dir);
  return out;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  return in >> one >> five >> fifteen ? one + " " + five + " " + fifteen : std::string();
}

const char* wait_policy() {
  const char* p = std::getenv("OMP_WAIT_POLICY");
  return p && *p ? p : "unset";
}

}  // namespace

void OtherProcesses::start() {
  start_ticks_ = process_ticks();
  started_ = std::chrono::steady_clock::now();
  load_before_ = load_average();
  MachineTicks ticks;
  started_ok_ = read_stat(ticks) && !start_ticks_.empty();
  steal_before_ = ticks.steal;
  total_before_ = ticks.total;
}

nlohmann::json OtherProcesses::summary() const {
  if (!started_ok_) return nullptr;
  const double window_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double tick_s = 1.0 / static_cast<double>(std::max(1L, ::sysconf(_SC_CLK_TCK)));
  // By name: six compilers or a browser's processes are one neighbour to the reader.
  std::map<std::string, double> seconds_by_name;
  for (const auto& [pid, now] : process_ticks()) {
    const auto then = start_ticks_.find(pid);
    // A process started during the window: all its time fell in it. (One that ended
    // during it is not seen: its time is lost to this count.)
    const double before = then != start_ticks_.end() && then->second.first == now.first ? then->second.second : 0.0;
    if (now.second > before) seconds_by_name[now.first] += (now.second - before) * tick_s;
  }
  // A process that started during the first scan may bring a tick from before the
  // window: no name can have taken more than every CPU for the whole window.
  const double cpus = static_cast<double>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  for (auto& [name, seconds] : seconds_by_name) seconds = std::min(seconds, cpus * window_s);
  std::vector<std::pair<std::string, double>> busiest(seconds_by_name.begin(), seconds_by_name.end());
  std::sort(busiest.begin(), busiest.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  nlohmann::json processes = nlohmann::json::array();
  for (size_t i = 0; i < busiest.size() && i < 8; ++i)
    processes.push_back({{"name", busiest[i].first}, {"cpu_s", busiest[i].second},
                         {"core_share", window_s > 0 ? busiest[i].second / window_s : 0.0}});
  MachineTicks ticks;
  const bool stat = read_stat(ticks);
  const double total = ticks.total - total_before_;
  return {{"window_s", window_s},
          {"cpus", static_cast<int64_t>(cpus)},
          {"steal_share", stat && total > 0 ? std::clamp((ticks.steal - steal_before_) / total, 0.0, 1.0) : 0.0},
          {"load_before", load_before_},
          {"load_after", load_average()},
          {"wait_policy", wait_policy()},
          {"threads", omp_get_max_threads()},
          {"processes", std::move(processes)}};
}

nlohmann::json combine_summaries(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_object()) return b;
  if (!b.is_object()) return a;
  const double wa = a.value("window_s", 0.0), wb = b.value("window_s", 0.0);
  const double window = wa + wb;
  std::map<std::string, double> seconds;
  for (const auto* s : {&a, &b})
    for (const auto& p : s->value("processes", nlohmann::json::array()))
      seconds[p.value("name", std::string())] += p.value("cpu_s", 0.0);
  std::vector<std::pair<std::string, double>> busiest(seconds.begin(), seconds.end());
  std::sort(busiest.begin(), busiest.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  nlohmann::json processes = nlohmann::json::array();
  for (size_t i = 0; i < busiest.size() && i < 8; ++i)
    processes.push_back(
        {{"name", busiest[i].first}, {"cpu_s", busiest[i].second}, {"core_share", window > 0 ? busiest[i].second / window : 0.0}});
  nlohmann::json out = a;
  out["window_s"] = window;
  out["steal_share"] =
      window > 0 ? (a.value("steal_share", 0.0) * wa + b.value("steal_share", 0.0) * wb) / window : 0.0;
  out["load_after"] = b.value("load_after", std::string());
  out["processes"] = std::move(processes);
  return out;
}

}  // namespace lmroof::bench
