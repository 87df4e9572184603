#pragma once
// The files one `lmroof run` writes into its --out folder (bench.json,
// bench.kernels.json, results.json, report.html, report.*.vl.json) form a set: the
// folder holds one run's set or the previous run's, never a mix, and a failed or
// interrupted run leaves the previous set untouched.
//
// How (docs/architecture.md, "Outputs"):
//   - DIR/.lmroof.lock is flock()ed for the whole run: a second run into DIR fails at
//     once. (The lock file stays; it is empty apart from the holder's pid.)
//   - Every file is written into a private staging folder, DIR/.lmroof-staging-<pid>-<random>.
//   - publish() lists the staged files in DIR/.lmroof-staging-*/.lmroof-set, then
//     writes the journal DIR/.lmroof-publishing (naming the staging folder) atomically:
//     that is the commit point. It then renames the staged files into DIR,
//     results.json last, removes the files of the previous set (DIR/.lmroof-set) that
//     the new one lacks, moves the new list to DIR/.lmroof-set, and removes the
//     staging folder and the journal.
//   - A process killed before the commit point leaves DIR's set as it was (its staging
//     folder is removed by the next run); killed after it, the journal lets the next
//     run finish the publish; readers refuse the folder until then (require_complete_set). SIGINT/SIGTERM
//     wait for a publish in progress (InterruptShield) and remove the staging folder.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/io/atomic_write.h"
#include "analysis/io/interrupt_cleanup.h"

namespace lmroof {

// Where keep_for_recovery kept the measurements: `folder`, or, when it is empty and
// there was something to keep, why it could not (`why_not`, one line).
struct KeptMeasurements {
  std::filesystem::path folder;
  std::string why_not;
};

// Which command's set a folder holds: `lmroof run`'s (bench.json, bench.kernels.json,
// results.json, report.html, report.*) or `lmroof trace`'s (trace.*). A folder holds
// one command's set: publishing removes the files of the previous set, so a set of the
// other command there would be deleted (issue 47, defect 1). Told by the file names.
enum class SetKind { run, trace };

// Refuses (std::invalid_argument, one line) an input of a command that publishing
// into `dir` would replace or remove: a file in `dir` at a name of the set
// (results.json, report.html, ... for a run; trace.* for a trace), of the previous
// set, or of lmroof's bookkeeping (.lmroof.lock, .lmroof-set, staging folders), named
// directly, through a symlink or "..", or as a hard link; and an input folder that is
// `dir` itself (the outputs would land among the inputs). Also refuses a `dir` that
// holds the other command's set (refuse_other_commands_set). Call it before
// OutputSet, which already writes the lock file, and before reading any input.
void check_inputs_outside_set(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& inputs,
                              SetKind kind = SetKind::run);

// Refuses (std::invalid_argument, one line) a `dir` whose previous set (its set list,
// or for a folder without one the run outputs it holds) has files of the other kind.
void refuse_other_commands_set(const std::filesystem::path& dir, SetKind kind);

class OutputSet {
 public:
  // Creates `dir` when missing, locks it (std::invalid_argument at once when another
  // run holds it), finishes a publish a killed run left half done, removes staging
  // folders of killed runs, and creates this run's staging folder, which also proves
  // that `dir` is writable. Every failure here is std::invalid_argument, one line
  // naming `dir`: nothing has been measured yet. A `dir` that holds the other
  // kind's set is refused (refuse_other_commands_set), checked again under the lock.
  explicit OutputSet(std::filesystem::path dir, SetKind kind = SetKind::run);
  // Unpublished: removes the staging folder. Releases the lock.
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Where a file of the set is written before publish(): staging folder / name.
  std::filesystem::path staged(std::string_view name) const { return staging_ / name; }

  // Makes the staged files DIR's set (see above). Throws std::runtime_error when a
  // rename fails after the commit point; the journal then lets the next run finish it.
  void publish();

  // When publishing cannot happen after a measurement (the analysis or the report
  // failed, the disk is full): keeps those of the staged files `names` that exist
  // (bench.json, ...) and the files `unwritten` that could not be staged (held in
  // memory; only their file names count) in a visible folder
  // DIR/lmroof-recovered-<pid>-<random>, so the measurement is not lost; where that
  // fails (a full disk), in the same folder under the temporary directory ($TMPDIR).
  // Every file there is complete, or the folder is not kept. Throws nothing.
  KeptMeasurements keep_for_recovery(const std::vector<std::string>& names,
                                     const std::vector<OutputContents>& unwritten = {});

 private:
  void close_lock();

  std::filesystem::path dir_;
  std::filesystem::path staging_;
  int lock_fd_ = -1;
  bool holds_lock_ = false;   // lock_fd_ is locked and is the file DIR/.lmroof.lock names
  bool created_dir_ = false;  // DIR did not exist before this run
  bool published_ = false;
  std::unique_ptr<RemoveOnInterrupt> remove_dir_if_interrupted_;
  std::unique_ptr<RemoveOnInterrupt> remove_lock_if_interrupted_;
  std::unique_ptr<RemoveOnInterrupt> remove_staging_if_interrupted_;
};

// The names of the set published in `dir`: its set list, or for a folder without one
// the run outputs it holds. A reader that takes every file of a folder (a rank folder)
// skips these: they are lmroof's own outputs, not its inputs (issue 47, defect 11).
std::vector<std::string> published_set(const std::filesystem::path& dir);

// For readers of a file in `dir`: when a run is publishing there right now, waits a
// few seconds for it; when a killed run left a publish unfinished (the journal is
// there), throws std::invalid_argument, one line saying how to finish it. Never
// changes the folder: a read-only command does not act on a journal, which anyone
// who can write into `dir` could have planted.
void require_complete_set(const std::filesystem::path& dir);

}  // namespace lmroof
