// The TensorFlow schema (generated from model/proto/*.proto).
#pragma once

#include "types.pb.h"
#include "tensor.pb.h"
#include "graph.pb.h"
#include "struct.pb.h"
#include "trackable_object_graph.pb.h"
#include "saved_object_graph.pb.h"
#include "meta_graph.pb.h"
#include "checkpoint.pb.h"
