#!/usr/bin/env python3
"""Expected values for the freeze tests of TF2 SavedModels, computed without
gdstudio: the checkpoint values of the variables a signature captures, found
by node id (node i of the SavedModel's object graph is node i of the
checkpoint's _CHECKPOINTABLE_OBJECT_GRAPH) with tf2inspect's reader.

usage: tf2_expected_variables.py TF2INSPECT_DIR SAVED_MODEL_DIR SIGNATURE OUT_DIR

Writes OUT_DIR/varNNN.npy and OUT_DIR/manifest.json: one entry per captured
variable, in argument order: {"name", "key", "file", "function"}.
"""
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import tfsm  # noqa: E402


def main():
    saved_model, signature, out_dir = sys.argv[2], sys.argv[3], sys.argv[4]
    sm, _, bundle = tfsm.load(saved_model)
    meta = [m for m in sm.meta_graphs if 'serve' in m.meta_info_def.tags][0]
    objects = meta.object_graph_def
    signatures = [c.node_id for c in objects.nodes[0].children if c.local_name == 'signatures'][0]
    fn_node = [c.node_id for c in objects.nodes[signatures].children if c.local_name == signature][0]
    function = objects.nodes[fn_node].bare_concrete_function.concrete_function_name
    graph = tfsm.pb.TrackableObjectGraph.FromString(bundle.tensor('_CHECKPOINTABLE_OBJECT_GRAPH')[0])
    entries = []
    for i, node_id in enumerate(objects.concrete_functions[function].bound_inputs):
        node = objects.nodes[node_id]
        if node.WhichOneof('kind') != 'variable':
            continue
        key = [a.checkpoint_key for a in graph.nodes[node_id].attributes if a.name == 'VARIABLE_VALUE'][0]
        name = 'var%03d.npy' % i
        np.save(os.path.join(out_dir, name), np.ascontiguousarray(bundle.tensor(key)))
        entries.append({'name': node.variable.name, 'key': key, 'file': name, 'function': function})
    with open(os.path.join(out_dir, 'manifest.json'), 'w') as f:
        json.dump(entries, f)


if __name__ == '__main__':
    main()
