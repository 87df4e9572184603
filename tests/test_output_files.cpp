// Output safety: the -o checks, atomic writes that replace only regular files, and
// the output set of `lmroof run` (lock, staging, publish, finishing a publish a
// killed run left half done). The e2e script tests/e2e/outputs_safety.sh drives the
// same through the CLI, signals included.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/io/atomic_write.h"
#include "analysis/io/output_file.h"
#include "analysis/io/output_set.h"
#include "analysis/io/page_side_files.h"

namespace lmroof {
namespace {

namespace fs = std::filesystem;

class OutputFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lmroof-outputs-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string get(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Every entry of a folder, hidden ones included, sorted.
  static std::string listing(const fs::path& d) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.insert(e.path().filename().string());
    std::string out;
    for (const auto& n : names) out += n + " ";
    return out;
  }
  fs::path dir_;
};

TEST_F(OutputFilesTest, CheckOutputFileRefusesWhatMustNotBeReplaced) {
  put(dir_ / "input.json", "{}");
  fs::create_symlink(dir_ / "input.json", dir_ / "link");
  fs::create_hard_link(dir_ / "input.json", dir_ / "hard");
  fs::create_directory(dir_ / "sub");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);

  EXPECT_NO_THROW(check_output_file(dir_ / "new.json", {dir_ / "input.json"}));
  EXPECT_NO_THROW(check_output_file(dir_ / "input.json"));  // a regular file that is not an input
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { check_output_file(dir_ / "link"); }).find("is a symbolic link"), std::string::npos);
  EXPECT_NE(message([&] { check_output_file(dir_ / "sub"); }).find("is a directory"), std::string::npos);
  EXPECT_NE(message([&] { check_output_file(dir_ / "fifo"); }).find("is a named pipe"), std::string::npos);
  EXPECT_NE(message([&] { check_output_file("/dev/null"); }).find("is a character device"), std::string::npos);
  EXPECT_NE(message([&] { check_output_file(dir_ / "hard", {dir_ / "input.json"}); }).find("this command's input"),
            std::string::npos);
  EXPECT_NE(message([&] { check_output_file(dir_ / "." / "input.json", {dir_ / "input.json"}); }).find("input"),
            std::string::npos);
  EXPECT_NE(message([&] { check_output_file(dir_ / "missing" / "x.json"); }).find("does not exist"), std::string::npos);
  EXPECT_NE(message([&] { check_output_file(dir_ / "input.json" / "x.json"); }).find("is not a folder"), std::string::npos);
  EXPECT_NE(message([&] { check_output_file(""); }).find("empty"), std::string::npos);
  EXPECT_NE(message([&] { check_output_file(dir_ / "nosuch" / ""); }).find("names a folder"), std::string::npos);
}

TEST_F(OutputFilesTest, AtomicWriteReplacesOnlyRegularFilesAndLeavesNoTemporaryFile) {
  write_file_atomically(dir_ / "a.json", "one");
  write_file_atomically(dir_ / "a.json", "two");
  EXPECT_EQ(get(dir_ / "a.json"), "two");
  put(dir_ / "target", "keep");
  fs::create_symlink(dir_ / "target", dir_ / "link");
  EXPECT_THROW(write_file_atomically(dir_ / "link", "x"), std::runtime_error);
  EXPECT_TRUE(fs::is_symlink(dir_ / "link"));
  EXPECT_EQ(get(dir_ / "target"), "keep");
  fs::create_directory(dir_ / "sub");
  EXPECT_THROW(write_file_atomically(dir_ / "sub", "x"), std::runtime_error);
  EXPECT_THROW(write_file_atomically(dir_ / "missing" / "a.json", "x"), std::runtime_error);
  EXPECT_EQ(listing(dir_), "a.json link sub target ");
  // Two temporary names for one target differ (pid + random).
  EXPECT_NE(unique_temp_path(dir_ / "a.json"), unique_temp_path(dir_ / "a.json"));
  EXPECT_EQ(unique_temp_path(dir_ / "a.json").parent_path(), dir_);
}

TEST_F(OutputFilesTest, PublishReplacesThePreviousSetAndKeepsOtherFiles) {
  // A folder a run wrote before set lists existed, plus a file of the user's.
  put(dir_ / "bench.json", "old");
  put(dir_ / "results.json", "old");
  put(dir_ / "report.gone.vl.json", "old");
  put(dir_ / "notes.txt", "mine");
  {
    OutputSet set(dir_);
    put(set.staged("bench.json"), "new");
    put(set.staged("results.json"), "new");
    put(set.staged("report.html"), "new");
    EXPECT_EQ(get(dir_ / "results.json"), "old");  // nothing visible before publish
    set.publish();
  }
  EXPECT_EQ(listing(dir_), ".lmroof-set .lmroof.lock bench.json notes.txt report.html results.json ");
  EXPECT_EQ(get(dir_ / ".lmroof-set"), "bench.json\nreport.html\nresults.json\n");  // results.json last
  EXPECT_EQ(get(dir_ / "results.json"), "new");
  EXPECT_EQ(get(dir_ / "notes.txt"), "mine");

  // The next set lacks report.html: it goes; the set list decides, not the names.
  {
    OutputSet set(dir_);
    put(set.staged("bench.json"), "newer");
    put(set.staged("results.json"), "newer");
    set.publish();
  }
  EXPECT_EQ(listing(dir_), ".lmroof-set .lmroof.lock bench.json notes.txt results.json ");
}

TEST_F(OutputFilesTest, AnUnpublishedSetLeavesTheFolderAsItWas) {
  put(dir_ / "results.json", "old");
  {
    OutputSet set(dir_);
    put(set.staged("results.json"), "new");
    EXPECT_NE(listing(dir_).find(".lmroof-staging-"), std::string::npos);
  }  // e.g. an exception before publish()
  EXPECT_EQ(listing(dir_), ".lmroof.lock results.json ");
  EXPECT_EQ(get(dir_ / "results.json"), "old");
}

TEST_F(OutputFilesTest, ASecondSetOnTheSameFolderFailsAtOnce) {
  OutputSet first(dir_);
  try {
    OutputSet second(dir_);
    FAIL() << "a second set on one folder was allowed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("another lmroof run (pid " + std::to_string(getpid()) + ")"), std::string::npos)
        << e.what();
  }
  put(dir_ / "afile", "x");
  EXPECT_THROW(OutputSet(dir_ / "afile"), std::invalid_argument);
  EXPECT_THROW(OutputSet(dir_ / "afile" / "x"), std::invalid_argument);
}

TEST_F(OutputFilesTest, APublishKilledAfterItsCommitPointIsFinishedByTheNextRunNotByAReader) {
  // The old set, as a run published it.
  put(dir_ / "bench.json", "old");
  put(dir_ / "results.json", "old");
  put(dir_ / "report.x.vl.json", "old");
  put(dir_ / ".lmroof-set", "bench.json\nreport.x.vl.json\nresults.json\n");
  // A run killed mid-publish: journal written, bench.json already moved, results.json not yet.
  const fs::path staging = dir_ / ".lmroof-staging-1-00000000deadbeef";
  fs::create_directory(staging);
  put(staging / ".lmroof-set", "bench.json\nresults.json\n");
  put(dir_ / "bench.json", "new");
  put(staging / "results.json", "new");
  put(dir_ / ".lmroof-publishing", staging.filename().string() + "\n");

  // A reader refuses the folder and changes nothing.
  const std::string before = listing(dir_);
  EXPECT_THROW(require_complete_set(dir_), std::invalid_argument);
  EXPECT_EQ(listing(dir_), before);
  EXPECT_EQ(get(dir_ / "results.json"), "old");

  { OutputSet next(dir_); }
  EXPECT_EQ(listing(dir_), ".lmroof-set .lmroof.lock bench.json results.json ");
  EXPECT_EQ(get(dir_ / "results.json"), "new");
  EXPECT_EQ(get(dir_ / ".lmroof-set"), "bench.json\nresults.json\n");
  require_complete_set(dir_);  // nothing unfinished
}

// Issue 26, defect 1: a planted journal naming a symlink to another folder moved that
// folder's files into DIR and deleted DIR's set.
TEST_F(OutputFilesTest, AJournalNamingASymlinkIsRefusedAndNothingMoves) {
  put(dir_ / "bench.json", "old");
  put(dir_ / "results.json", "old");
  const fs::path victim = dir_.parent_path() / (dir_.filename().string() + "-victim");
  fs::create_directories(victim);
  put(victim / ".lmroof-set", "secret.txt\nresults.json\n");
  put(victim / "secret.txt", "secret");
  put(victim / "results.json", "victim");
  fs::create_directory_symlink(victim, dir_ / ".lmroof-staging-x");
  put(dir_ / ".lmroof-publishing", ".lmroof-staging-x\n");

  EXPECT_THROW(require_complete_set(dir_), std::invalid_argument);
  EXPECT_THROW(OutputSet set(dir_), std::invalid_argument);
  EXPECT_EQ(get(victim / "secret.txt"), "secret");
  EXPECT_EQ(get(victim / "results.json"), "victim");
  EXPECT_EQ(get(dir_ / "bench.json"), "old");
  EXPECT_EQ(get(dir_ / "results.json"), "old");
  fs::remove_all(victim);
}

// Issue 26, defect 3: a name of the set that cannot be replaced (a folder named
// report.html) is refused before measuring, not after.
TEST_F(OutputFilesTest, ASetNameThatCannotBeReplacedIsRefusedUpFront) {
  fs::create_directory(dir_ / "report.html");
  EXPECT_THROW(OutputSet set(dir_), std::invalid_argument);
}

TEST_F(OutputFilesTest, AFailedPublishKeepsTheMeasurementInARecoveryFolder) {
  fs::path kept;
  {
    OutputSet set(dir_);
    put(set.staged("bench.json"), "measured");
    kept = set.keep_for_recovery({"bench.json", "bench.kernels.json"}).folder;
  }
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.parent_path(), dir_);
  EXPECT_EQ(get(kept / "bench.json"), "measured");
  EXPECT_FALSE(fs::exists(kept / "bench.kernels.json"));
}

// Issue 26, defect 2: outputs are checked against every input and each other.
TEST_F(OutputFilesTest, OutputsThatAreInputsOrEachOtherAreRefused) {
  put(dir_ / "a.json", "a");
  EXPECT_THROW(check_outputs({dir_ / "x.html", dir_ / "a.json"}, {dir_ / "b.json", dir_ / "a.json"}), std::invalid_argument);
  EXPECT_THROW(check_outputs({dir_ / "m.html", dir_ / "." / "m.html"}, {}), std::invalid_argument);
  EXPECT_NO_THROW(check_outputs({dir_ / "m.html", dir_ / "m.json"}, {dir_ / "a.json"}));
  EXPECT_EQ(get(dir_ / "a.json"), "a");
}

// Issue 26, defect 3: a set of files is written whole or not at all.
TEST_F(OutputFilesTest, AFileSetThatCannotBeWrittenLeavesEveryTargetAsItWas) {
  put(dir_ / "r.html", "old page");
  fs::create_directory(dir_ / "r.chart.vl.json");  // the second file cannot be written
  EXPECT_THROW(write_files_as_set({{dir_ / "r.runs.csv", "new"}, {dir_ / "r.chart.vl.json", "new"}, {dir_ / "r.html", "new"}}),
               std::runtime_error);
  EXPECT_EQ(get(dir_ / "r.html"), "old page");
  EXPECT_FALSE(fs::exists(dir_ / "r.runs.csv"));
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_FALSE(entry.path().filename().string().ends_with(".tmp")) << entry.path();
}

// Issue 26, defect 12: a long output name still fits with its temporary suffix.
TEST_F(OutputFilesTest, ALongOutputNameCanBeWritten) {
  const fs::path path = dir_ / (std::string(240, 'r') + ".html");
  write_file_atomically(path, "page");
  EXPECT_EQ(get(path), "page");
}

TEST_F(OutputFilesTest, ANewSetRemovesStagingFoldersOfKilledRuns) {
  put(dir_ / "results.json", "old");
  fs::create_directory(dir_ / ".lmroof-staging-1-0000000000000001");
  put(dir_ / ".lmroof-staging-1-0000000000000001" / "bench.json", "half");
  put(dir_ / "..lmroof-publishing.1-0000000000000001.tmp", "half");
  { OutputSet set(dir_); }
  EXPECT_EQ(listing(dir_), ".lmroof.lock results.json ");
}

TEST_F(OutputFilesTest, AJournalThatLmroofDidNotWriteIsRefused) {
  put(dir_ / ".lmroof-publishing", "../../etc\n");
  EXPECT_THROW(require_complete_set(dir_), std::invalid_argument);
  EXPECT_THROW(OutputSet set(dir_), std::invalid_argument);
}


// ---- Issue 38 ----------------------------------------------------------------------

// Item 3: a lock file that is a hard link to another file is refused, never written
// through (the pid went into precious.txt).
TEST_F(OutputFilesTest, AHardLinkedLockFileIsRefusedAndNeverWritten) {
  const fs::path out = dir_ / "o";
  fs::create_directory(out);
  put(dir_ / "precious.txt", "precious");
  fs::create_hard_link(dir_ / "precious.txt", out / ".lmroof.lock");
  try {
    OutputSet set(out);
    FAIL() << "a hard-linked lock file was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("hard link"), std::string::npos) << e.what();
  }
  EXPECT_EQ(get(dir_ / "precious.txt"), "precious");
  EXPECT_EQ(listing(out), ".lmroof.lock ");
  // A FIFO at the name is refused too, without blocking.
  fs::remove(out / ".lmroof.lock");
  ASSERT_EQ(::mkfifo((out / ".lmroof.lock").c_str(), 0600), 0);
  EXPECT_THROW(OutputSet set(out), std::invalid_argument);
}

// Item 6: a folder, FIFO or symlink at DIR/.lmroof-set is refused before measuring
// (it used to fail after the commit point and block every later run).
TEST_F(OutputFilesTest, ANonRegularSetListIsRefusedUpFront) {
  put(dir_ / "target", "t");
  for (const std::string kind : {"folder", "fifo", "symlink"}) {
    const fs::path out = dir_ / kind;
    fs::create_directory(out);
    if (kind == "folder") fs::create_directory(out / ".lmroof-set");
    if (kind == "fifo") {
      ASSERT_EQ(::mkfifo((out / ".lmroof-set").c_str(), 0600), 0);
    }
    if (kind == "symlink") fs::create_symlink(dir_ / "target", out / ".lmroof-set");
    try {
      OutputSet set(out);
      FAIL() << kind << " at .lmroof-set was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(".lmroof-set: is a"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("remove it"), std::string::npos) << e.what();
    }
    EXPECT_EQ(listing(out).find("staging"), std::string::npos) << listing(out);
    EXPECT_EQ(listing(out).find("publishing"), std::string::npos) << listing(out);
  }
  EXPECT_EQ(get(dir_ / "target"), "t");
}

// Item 21: a first run that publishes nothing leaves no folder holding only its lock;
// a folder the user made stays, empty.
TEST_F(OutputFilesTest, AnUnpublishedFirstSetLeavesNoLockBehind) {
  { OutputSet set(dir_ / "fresh" / "deeper"); }
  EXPECT_FALSE(fs::exists(dir_ / "fresh" / "deeper"));
  fs::create_directory(dir_ / "mine");
  { OutputSet set(dir_ / "mine"); }
  EXPECT_EQ(listing(dir_ / "mine"), "");
  // A folder that holds more keeps its lock file (the next run reuses it).
  put(dir_ / "mine" / "notes.txt", "n");
  { OutputSet set(dir_ / "mine"); }
  EXPECT_EQ(listing(dir_ / "mine"), ".lmroof.lock notes.txt ");
}

// Item 1: an input of a run that the run would replace is refused, by name, through
// another spelling and by identity (a hard link).
TEST_F(OutputFilesTest, ARunsInputInsideItsOutputSetIsRefused) {
  const fs::path out = dir_ / "o";
  fs::create_directory(out);
  put(out / "results.json", "config");
  put(out / "report.html", "claims");
  put(out / "notes.yaml", "mine");
  put(out / "report.x.vl.json", "old chart");
  EXPECT_THROW(check_inputs_outside_set(out, {out / "results.json"}), std::invalid_argument);
  EXPECT_THROW(check_inputs_outside_set(out, {dir_ / "notes.yaml", out / "report.html"}), std::invalid_argument);
  EXPECT_THROW(check_inputs_outside_set(out, {out / "report.x.vl.json"}), std::invalid_argument);
  EXPECT_THROW(check_inputs_outside_set(out / "." , {dir_ / "o" / ".." / "o" / "results.json"}), std::invalid_argument);
  EXPECT_THROW(check_inputs_outside_set(out, {out / ".lmroof.lock"}), std::invalid_argument);
  fs::create_hard_link(out / "results.json", dir_ / "config.json");
  EXPECT_THROW(check_inputs_outside_set(out, {dir_ / "config.json"}), std::invalid_argument);
  fs::create_symlink(out / "report.html", dir_ / "claims.yaml");
  EXPECT_THROW(check_inputs_outside_set(out, {dir_ / "claims.yaml"}), std::invalid_argument);
  // A file of the user's in --out, one elsewhere, and a folder not made yet are fine.
  EXPECT_NO_THROW(check_inputs_outside_set(out, {out / "notes.yaml"}));
  put(dir_ / "elsewhere.json", "x");
  EXPECT_NO_THROW(check_inputs_outside_set(out, {dir_ / "elsewhere.json"}));
  EXPECT_NO_THROW(check_inputs_outside_set(dir_ / "new", {dir_ / "elsewhere.json"}));
  // A name the previous set listed counts too.
  put(out / ".lmroof-set", "custom.bin\n");
  put(out / "custom.bin", "x");
  EXPECT_THROW(check_inputs_outside_set(out, {out / "custom.bin"}), std::invalid_argument);
}

// Item 4, without root or a full disk: a file size limit (RLIMIT_FSIZE) makes a write
// come up short. The error names the file and the reason; nothing is left half written.
TEST_F(OutputFilesTest, AShortWriteIsReportedAndLeavesEveryTargetAsItWas) {
  put(dir_ / "r.html", "old page");
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &previous), 0);  // EFBIG instead of a signal
  rlimit small = before;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  try {
    write_files_as_set({{dir_ / "r.runs.csv", "small"}, {dir_ / "r.html", std::string(100000, 'x')}});
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &before);
  ::sigaction(SIGXFSZ, &previous, nullptr);
  EXPECT_NE(error.find("cannot write " + (dir_ / "r.html").string() + ": File too large"), std::string::npos) << error;
  EXPECT_EQ(get(dir_ / "r.html"), "old page");
  EXPECT_EQ(listing(dir_), "r.html ");
}

// Item 4: measurements that could not be staged are kept whole in a recovery folder.
TEST_F(OutputFilesTest, MeasurementsThatCouldNotBeStagedAreKeptWhole) {
  KeptMeasurements kept;
  {
    OutputSet set(dir_);
    kept = set.keep_for_recovery({"bench.json"}, {{"bench.json", "{\"measured\": 1}"}});
  }
  ASSERT_FALSE(kept.folder.empty()) << kept.why_not;
  EXPECT_EQ(kept.folder.parent_path(), dir_);
  EXPECT_EQ(get(kept.folder / "bench.json"), "{\"measured\": 1}");
  EXPECT_EQ(listing(kept.folder), "bench.json ");
}

// Item 5: a name longer than the file system allows is refused before anything is
// written (report's side files used to fail after the first was renamed into place).
TEST_F(OutputFilesTest, ANameTooLongIsRefusedBeforeWriting) {
  const fs::path page = dir_ / (std::string(240, 'r') + ".html");
  EXPECT_NO_THROW(check_outputs({page}, {}));
  try {
    check_outputs({dir_ / (std::string(240, 'r') + ".runs.csv"), dir_ / (std::string(240, 'r') + ".pair-decode.vl.json"), page},
                  {});
    FAIL() << "a 260-byte name was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("File name too long"), std::string::npos) << e.what();
  }
  std::string deep = dir_.string();
  while (deep.size() < PATH_MAX) deep += "/" + std::string(200, 'd');
  EXPECT_THROW(check_output_file(fs::path(deep) / "x.html"), std::invalid_argument);
  EXPECT_EQ(listing(dir_), "");
}

// Item 14: a page records its side files; the next page at that name removes those it
// lacks, and only regular files whose names the earlier page recorded.
TEST_F(OutputFilesTest, APageRemovesTheSideFilesOfTheEarlierPageItLacks) {
  const fs::path page = dir_ / "x.html";
  std::vector<OutputContents> first = {{dir_ / "x.runs.csv", "1"}, {dir_ / "x.pair-decode.vl.json", "1"},
                                       {dir_ / "x.odd name%<>.vl.json", "1"}, {page, "page 1\n"}};
  first.back().contents += side_files_record(first);
  write_page_and_side_files(first);
  EXPECT_EQ(recorded_side_files(page),
            (std::vector<std::string>{"x.runs.csv", "x.pair-decode.vl.json", "x.odd name%<>.vl.json"}));
  put(dir_ / "x.mine.vl.json", "mine");  // the user's, never recorded
  std::vector<OutputContents> second = {{dir_ / "x.runs.csv", "2"}, {page, "page 2\n"}};
  second.back().contents += side_files_record(second);
  write_page_and_side_files(second);
  EXPECT_EQ(listing(dir_), "x.html x.mine.vl.json x.runs.csv ");
  EXPECT_EQ(get(dir_ / "x.runs.csv"), "2");
  // A record naming files of another stem, another folder or a folder removes nothing.
  put(page, "<!-- lmroof-side-files: y.runs.csv ../x.runs.csv x.sub -->\n");
  put(dir_ / "y.runs.csv", "y");
  fs::create_directory(dir_ / "x.sub");
  write_page_and_side_files({{page, "page 3\n"}});
  EXPECT_EQ(listing(dir_), "x.html x.mine.vl.json x.runs.csv x.sub y.runs.csv ");
}

}  // namespace
}  // namespace lmroof
