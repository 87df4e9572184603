#pragma once
// A page written with files beside it (`report -o x.html`: x.runs.csv, x.<chart>.vl.json)
// records their names in itself, so that the next page written at that name removes
// the side files of the earlier page that the new one lacks, and nothing else: an
// earlier x.pair-decode.vl.json goes, a file of the user's named like one stays.
#include <string>
#include <vector>

#include "analysis/io/atomic_write.h"

namespace lmroof {

// The record to append to the page (the last of `files`): one HTML comment,
// "<!-- lmroof-side-files: NAME NAME ... -->", naming every other file of `files`,
// percent-encoded (a space, '%', '<', '>' or control character as %XX).
std::string side_files_record(const std::vector<OutputContents>& files);

// The side file names a page at `page` records (side_files_record); none when there
// is no such page or record. Only plain names of files beside the page that start
// with its stem and a dot ("x." for x.html) count.
std::vector<std::string> recorded_side_files(const std::filesystem::path& page);

// Writes `files` (the page last, its record in it) as one set (write_files_as_set),
// then removes the regular files the previous page at that path recorded that the
// new set does not have.
void write_page_and_side_files(const std::vector<OutputContents>& files);

}  // namespace lmroof
