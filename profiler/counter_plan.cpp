// The metric selection follows NVIDIA's range_profiling sample (cuptiProfilerHostInitialize
// -> cuptiProfilerHostConfigAddMetrics -> cuptiProfilerHostGetConfigImage(Size) ->
// cuptiProfilerHostGetNumOfPasses), with every metric checked by name first so that one
// unknown name costs that metric only, never the whole configuration.
#include "profiler/counter_plan.h"

#ifdef LMROOF_WITH_CUDA
#include "profiler/cupti_host_config.h"
#include "profiler/cupti_status.h"
#endif

namespace lmroof::profiler {

#ifdef LMROOF_WITH_CUDA

void CuptiHostConfig::reset() {
  image_.clear();
  if (!host_) return;
  auto p = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  cuptiProfilerHostDeinitialize(&p);  // nothing to do about a failure while tearing down
  host_ = nullptr;
}

CUptiResult CuptiHostConfig::init() {
  reset();
  auto p = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip_.c_str();
  p.pCounterAvailabilityImage = availability_.empty() ? nullptr : availability_.data();
  const CUptiResult r = cuptiProfilerHostInitialize(&p);
  if (r == CUPTI_SUCCESS) host_ = p.pHostObject;
  return r;
}

CUptiResult CuptiHostConfig::add_metrics(const std::vector<std::string>& names) const {
  std::vector<const char*> pointers;
  for (const auto& n : names) pointers.push_back(n.c_str());
  auto p = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  p.ppMetricNames = pointers.data();
  p.numMetrics = pointers.size();
  return cuptiProfilerHostConfigAddMetrics(&p);
}

std::string CuptiHostConfig::check_metric(const std::string& name) const {
  auto p = cupti_params<CUpti_Profiler_Host_GetMetricProperties_Params>(
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  p.pMetricName = name.c_str();
  const CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
  return r == CUPTI_SUCCESS ? std::string() : cupti_error(r);
}

bool CuptiHostConfig::select_metrics(const std::string& chip, const std::vector<uint8_t>& availability,
                                     const std::vector<std::string>& requested, CounterPlan& plan) {
  chip_ = chip;
  availability_ = availability;
  plan.chip = chip;
  plan.metrics.clear();
  plan.dropped.clear();
  if (const CUptiResult r = init(); r != CUPTI_SUCCESS) {
    plan.reason = cupti_failure(("cuptiProfilerHostInitialize(chip " + chip + ")").c_str(), r);
    if (r == CUPTI_ERROR_INVALID_CHIP_NAME) {
      std::string known;
      for (const auto& name : cupti_supported_chips()) known += (known.empty() ? "" : " ") + name;
      plan.reason += "; chips this CUPTI knows: " + known;
    }
    return false;
  }
  std::vector<std::string> candidates;
  for (const auto& m : requested) {
    if (const std::string why = check_metric(m); why.empty())
      candidates.push_back(m);
    else
      plan.dropped[m] = "not a metric of " + chip + ": " + why;
  }
  if (candidates.empty()) {
    // Every name refused by the property query: let ConfigAddMetrics, the call that
    // matters, decide metric by metric (its answers replace the ones above).
    candidates = requested;
    plan.dropped.clear();
  }

  // A refused set leaves the host object unusable (later calls answer UNKNOWN), so each
  // trial below starts from a fresh one.
  if (candidates.empty() || add_metrics(candidates) != CUPTI_SUCCESS) {
    std::vector<std::string> kept;
    for (const auto& m : candidates) {
      if (const CUptiResult r = init(); r != CUPTI_SUCCESS) {
        plan.reason = cupti_failure("cuptiProfilerHostInitialize", r);
        return false;
      }
      std::vector<std::string> trial = kept;
      trial.push_back(m);
      if (const CUptiResult r = add_metrics(trial); r == CUPTI_SUCCESS)
        kept.push_back(m);
      else
        plan.dropped[m] = "refused by cuptiProfilerHostConfigAddMetrics on " + chip + ": " + cupti_error(r);
    }
    if (const CUptiResult r = init(); r != CUPTI_SUCCESS) {
      plan.reason = cupti_failure("cuptiProfilerHostInitialize", r);
      return false;
    }
    if (!kept.empty()) {
      if (const CUptiResult r = add_metrics(kept); r != CUPTI_SUCCESS) {
        plan.reason = cupti_failure("cuptiProfilerHostConfigAddMetrics", r);
        return false;
      }
    }
    candidates = kept;
  }
  plan.metrics = candidates;
  if (plan.metrics.empty()) {
    plan.reason = "none of the requested metrics can be collected on " + chip;
    return false;
  }
  return true;
}

bool CuptiHostConfig::build_image(CounterPlan& plan) {
  auto size = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host_;
  if (const CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS) {
    plan.reason = cupti_failure("cuptiProfilerHostGetConfigImageSize", r);
    return false;
  }
  // Seen offline (no availability image): CUPTI answers success with size 0. An empty
  // image would only fail later, in cuptiRangeProfilerSetConfig, with a vaguer error.
  if (size.configImageSize == 0) {
    plan.reason = "CUPTI built an empty configuration image for " + plan.chip;
    return false;
  }
  image_.assign(size.configImageSize, 0);
  auto image =
      cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = host_;
  image.configImageSize = image_.size();
  image.pConfigImage = image_.data();
  if (const CUptiResult r = cuptiProfilerHostGetConfigImage(&image); r != CUPTI_SUCCESS) {
    plan.reason = cupti_failure("cuptiProfilerHostGetConfigImage", r);
    return false;
  }
  auto passes =
      cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = image_.size();
  passes.pConfigImage = image_.data();
  if (const CUptiResult r = cuptiProfilerHostGetNumOfPasses(&passes); r != CUPTI_SUCCESS) {
    plan.reason = cupti_failure("cuptiProfilerHostGetNumOfPasses", r);
    return false;
  }
  plan.passes = passes.numOfPasses;
  return true;
}

std::vector<std::string> cupti_supported_chips() {
  auto p = cupti_params<CUpti_Profiler_Host_GetSupportedChips_Params>(
      CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  std::vector<std::string> out;
  if (cuptiProfilerHostGetSupportedChips(&p) != CUPTI_SUCCESS || !p.ppChipNames) return out;
  for (size_t i = 0; i < p.numChips; ++i)
    if (p.ppChipNames[i]) out.emplace_back(p.ppChipNames[i]);
  return out;
}

CounterPlan plan_counters_offline(const std::string& chip, const std::vector<std::string>& requested) {
  CounterPlan plan;
  if (requested.empty()) {
    plan.chip = chip;
    plan.reason = "no metrics requested";
    return plan;
  }
  CuptiHostConfig config;
  plan.available = config.select_metrics(chip, {}, requested, plan);
  return plan;
}

#else  // !LMROOF_WITH_CUDA

CounterPlan plan_counters_offline(const std::string& chip, const std::vector<std::string>&) {
  CounterPlan plan;
  plan.chip = chip;
  plan.reason = "built without CUDA (nvcc was not found at configure time), so without CUPTI";
  return plan;
}

std::vector<std::string> cupti_supported_chips() { return {}; }

#endif

}  // namespace lmroof::profiler
