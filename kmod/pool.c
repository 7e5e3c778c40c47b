// SPDX-License-Identifier: GPL-2.0
/* Placeholder: replaced by the store subsystem (head page pool). */
#include "goblin.h"
