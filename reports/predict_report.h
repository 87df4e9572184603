#pragma once
// `lmroof predict -o predict.html`: the prediction's tables and four charts (KV cache
// against context with the devices' memory, decode tokens/s against batch by bound,
// one decode step's time per op, MHA/GQA/MQA) on one self-contained page, in the
// report's template (html_report.h's render_page_html).
#include <filesystem>
#include <string>

#include "analysis/predict/prediction.h"
#include "reports/charts.h"

namespace lmroof::report {

std::vector<Chart> predict_charts(const predict::Prediction& prediction);
std::string predict_html(const predict::Prediction& prediction);
// Atomically; the caller checked the path before any work (check_output_file).
void write_predict_html(const predict::Prediction& prediction, const std::filesystem::path& path);

}  // namespace lmroof::report
