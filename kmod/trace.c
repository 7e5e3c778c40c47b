// SPDX-License-Identifier: GPL-2.0
/*
 * Goblin Store: the one object that instantiates the tracepoints of
 * kmod/trace.h (Documentation/tracing.rst).
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
