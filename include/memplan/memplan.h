/*
 * memplan/memplan.h -- umbrella header of onnx-memplan: how much memory an
 * ONNX model needs while it runs, and why.
 *
 * Pipeline: bytes --load--> graph IR --shapes--> typed IR --analysis--> facts
 * --plans--> plan --outputs--> JSON / annotated model. One header per concept.
 */
#ifndef MEMPLAN_MEMPLAN_H
#define MEMPLAN_MEMPLAN_H

#include "memplan/error.h"
#include "memplan/model.h"
#include "memplan/info.h"
#include "memplan/liveness.h"
#include "memplan/plan.h"
#include "memplan/validate.h"
#include "memplan/sizes.h"
#include "memplan/expr.h"
#include "memplan/shapes.h"
#include "memplan/inplace.h"
#include "memplan/tags.h"
#include "memplan/release.h"
#include "memplan/profile.h"
#include "memplan/annotate.h"
#include "memplan/schedule.h"
#include "memplan/constants.h"
#include "memplan/model_plan.h"
#include "memplan/reorder.h"
#include "memplan/report.h"
#include "memplan/command.h"
#include "memplan/session.h"
#include "memplan/trace.h"
#include "memplan/ort_float16.h"

/* Library version string, e.g. "0.1.0". */
const char *memplan_version(void);

#endif
