#pragma once
// Files compiled into the binary by reports/CMakeLists.txt (.incbin).
#include <string_view>

namespace lmroof::assets {
std::string_view vega_js();
std::string_view vega_lite_js();
std::string_view vega_embed_js();
std::string_view report_template_html();
std::string_view report_js();
std::string_view report_css();
// Vega-Lite chart templates (reports/template/charts/).
std::string_view chart_roofline();
std::string_view chart_pair();
std::string_view chart_block_shares();
std::string_view chart_intensity_vs_batch();
// lmroof predict's page (reports/predict_report.cpp).
std::string_view chart_predict_kv_context();
std::string_view chart_predict_decode_batch();
std::string_view chart_predict_step_ops();
std::string_view chart_predict_kv_variants();
std::string_view chart_trace_roofline();
}  // namespace lmroof::assets
