#include "device/device_compare.h"

#include "engine/rewrite/optimize_for_inference.h"
#include "model/npy.h"
#include "model/tensor.h"
#include "model/tflite/dialect.h"

namespace gds::device {

bool DeviceComparison::equal() const {
  for (const auto& o : outputs)
    if (o.differing > 0) return false;
  return true;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Writes one sample's inputs as .npy files for the device.
Status writeSample(const std::vector<engine::Tensor>& sample, std::size_t index, const std::string& folder,
                   DeviceModel* model) {
  model->input_files.clear();
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const std::string file = folder + "/input" + std::to_string(index) + "_" + std::to_string(i) + ".npy";
    GDS_RETURN_IF_ERROR(model::writeNpy(file, sample[i].toHost()));
    model->input_files.push_back(file);
  }
  return Status::Ok();
}

}  // namespace

Result<DeviceComparison> compareWithDevice(DeviceBench& bench, const DeviceCompareModel& model,
                                           const std::vector<std::vector<engine::Tensor>>& samples,
                                           const std::string& folder,
                                           const std::function<void(std::size_t, std::size_t)>& progress) {
  if (!model.graph) return Status::Error("compareWithDevice: no graph");
  const std::vector<std::string>& names = model.names.empty() ? model.fetches : model.names;
  auto plan = engine::compileForInference(*model.graph, model.feeds, model.fetches, model.plan);
  if (!plan.ok()) return plan.status();
  const bool tflite = model::tflite::isDialectGraph(*model.graph);
  DeviceComparison c;
  c.outputs.resize(model.fetches.size());
  for (std::size_t i = 0; i < model.fetches.size(); ++i) {
    c.outputs[i].tensor = names[i];
    c.outputs[i].step = tflite ? engine::outputStep(*model.graph, model.fetches[i]) : 0;
  }
  DeviceModel dm = model.device;
  for (std::size_t s = 0; s < samples.size(); ++s) {
    if (model.plan.cancelled && model.plan.cancelled()) return Status::Error("cancelled");
    if (progress) progress(s, samples.size());
    auto desktop = (*plan)->run(samples[s]);
    if (!desktop.ok()) return desktop.status();
    GDS_RETURN_IF_ERROR(writeSample(samples[s], s, folder, &dm));
    auto run = bench.outputs(dm);
    if (!run.ok()) return run.status();
    c.device = run->device;
    c.runtime = run->runtime;
    c.command = run->command;
    if (run->tensors.size() != desktop->size())
      return Status::Error("device " + run->device + ": the " + run->runtime + " runtime returned " +
                           std::to_string(run->tensors.size()) + " outputs; the desktop computed " +
                           std::to_string(desktop->size()) + " (" + joined(names) + ")");
    for (std::size_t i = 0; i < run->tensors.size(); ++i) {
      const model::HostTensor here = (*desktop)[i].toHost();
      const model::HostTensor& there = run->tensors[i];
      if (here.shape != there.shape || here.dtype != there.dtype)
        return Status::Error("device " + run->device + ": output " + names[i] + " is " +
                             model::dtypeName(there.dtype) + model::shapeString(there.shape) +
                             " on the device and " + model::dtypeName(here.dtype) + model::shapeString(here.shape) +
                             " on the desktop");
      engine::addOutputSample(here, there, static_cast<std::int64_t>(s), &c.outputs[i]);
    }
    ++c.samples;
  }
  return c;
}

}  // namespace gds::device
