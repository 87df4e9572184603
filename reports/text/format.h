#pragma once
// Readable numbers and safe text for the HTML report. The numbers are the project's
// one set (analysis/numbers/numbers.h); this adds HTML escaping and shape labels.
#include <string>
#include <string_view>
#include <vector>

#include "analysis/numbers/numbers.h"
#include "analysis/model/results_model.h"

namespace lmroof::report {

using numbers::integer_or_sig;
using numbers::kDash;
using numbers::percent;
using numbers::ratio;
using numbers::si;
using numbers::sig;

// Escapes & < > " ' for text and attribute values.
std::string html_escape(std::string_view text);

// "tokens=4096 d_model=1024": model::Catalogue::label, the one shape text of every
// surface (dimensions in the catalogue's order, unknown names after them), skipping
// the names in `skip`.
std::string shape_label(const model::Catalogue& catalogue, const model::Shape& shape,
                        const std::vector<std::string>& skip = {});

}  // namespace lmroof::report
