/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

G_BEGIN_DECLS

/* Declares every function named in km-cli-commands.inc. */
#define KM_CLI_COMMAND(name, summary, func) int func (int argc, char **argv);
#include "km-cli-commands.inc"
#undef KM_CLI_COMMAND

G_END_DECLS
