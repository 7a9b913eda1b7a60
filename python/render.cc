#include "python/render.h"

#include <mutex>

#include "model/dot_export.h"
#include "model/graph.h"

#ifdef GDS_PYTHON_HAVE_GRAPHVIZ
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#endif

namespace gds::python {

Result<std::string> renderGraph(const tensorflow::GraphDef& graph, const std::string& format, bool left_to_right) {
  if (format != "svg" && format != "png" && format != "pdf" && format != "dot")
    return Status::Error("render: format must be svg, png, pdf or dot, got '" + format + "'");
  auto index = model::Graph::build(graph);
  if (!index.ok()) return index.status();
  std::string dot = model::richDot(*index, left_to_right);
  if (format == "dot") return dot;
#ifdef GDS_PYTHON_HAVE_GRAPHVIZ
  // Graphviz keeps global state: one layout at a time, one context for the
  // process (as graphview does).
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  static GVC_t* gvc = gvContext();
  agseterr(AGMAX);
  agreseterrors();
  Agraph_t* g = agmemread(dot.c_str());
  if (!g) return Status::Error("render: Graphviz could not read the graph's DOT text");
  std::string out;
  Status status;
  if (gvLayout(gvc, g, "dot") != 0) {
    status = Status::Error("render: Graphviz dot layout failed");
  } else {
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, g, format.c_str(), &data, &length) != 0 || !data)
      status = Status::Error("render: Graphviz cannot write " + format + " (is its plugin for " + format +
                             " installed? `dot -T?` lists the formats)");
    else
      out.assign(data, length);
    if (data) gvFreeRenderData(data);
    gvFreeLayout(gvc, g);
  }
  agclose(g);
  if (!status.ok()) return status;
  return out;
#else
  return Status::Error("render: this build has no Graphviz (libgvc); format='dot' gives the DOT text");
#endif
}

}  // namespace gds::python
