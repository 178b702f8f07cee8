/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-document.h"
#include "km-item.h"

G_BEGIN_DECLS

/*
 * The folder a file dialog starts in, so that it does not open in the process's working
 * directory (where the program happened to be started). Each returns (transfer full) an
 * existing folder, or NULL when nothing is known: the dialog then starts where it would.
 */

/* For Save Project As: the folder of the project's file; for a project never saved, that
 * of the first item read from a file (the model it was made by opening). */
GFile *km_file_chooser_folder_for_project (KmDocument *document);
/* For saving or exporting @item (nullable): the folder of the file it was read from or
 * saved to (as its project resolves the reference), else the project's folder. */
GFile *km_file_chooser_folder_for_item    (KmDocument *document,
                                           KmItem     *item);
/* For Open: the current project's folder, else @last_folder (nullable: the folder the
 * user last opened a file from). */
GFile *km_file_chooser_folder_for_open    (KmDocument *document,
                                           GFile      *last_folder);

G_END_DECLS
