/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-format.h"
#include "km-item.h"
#include "km-project.h"

G_BEGIN_DECLS

/*
 * Choreonoid project files (.cnoid, specs/cnoid-project-file.*; DESIGN.md "Project files").
 *
 * Reading: the `items` tree becomes KmItems, each built from its plugin/class
 * (Base/RootItem, Base/FolderItem, Base/SubProjectItem, Body/WorldItem, Body/BodyItem,
 * Kinema/IKTargetsItem, Kinema/IKAnimationItem). An item of any other type is a
 * KmUnknownItem whose children are still read as items; an item that cannot be read (wrong
 * types, a failing restore) is reported as "FILE:LINE:COLUMN: …" on the project's message
 * list and kept verbatim with its whole subtree (KmUnknownItem, verbatim children). The
 * load only fails for a file that is unreadable, not YAML, or has no `items` mapping.
 *
 * Every other top-level section (optional_plugins, views, toolbars, plugin sections,
 * view_areas, toolbar_layout and their older spellings) is kept verbatim in
 * km_project_get_sections(), in file order; the `items` key stays in that mapping, with an
 * empty value, to mark where the tree goes when the file is written.
 *
 * Ids: items keep the ids they were read with; a duplicate id is reported and the second
 * item gets a new one at the next save; new items get ids above every id ever read (so
 * references inside preserved data never come to point at a different item). Item
 * references (an id, or `[id, "SubItemName", …]` for a sub-item) are checked after the
 * whole tree is built (km_cnoid_resolve_reference); the current body comes from the Body
 * plugin's BodySelectionManager when it names one.
 *
 * A `schema` in an item's data newer than the item class knows gives a warning, and the
 * item loads what it can.
 *
 * Selection: the items marked `is_selected` (`isSelected`), or, as Choreonoid 1.x writes
 * them, listed in the `selected` list of ids in the ItemTreeView's state, are selected
 * when loaded. The mark follows km_project_get_selection() when written; the list is
 * written back as it was, less the items no longer selected (items selected since get
 * `is_selected: true`).
 *
 * Check marks: `is_checked` (`isChecked`) on the items, or, as Choreonoid 1.x writes them,
 * the `checked` list of ids in the ItemTreeView's state; that list is written back as it
 * was, less the items unchecked since (items checked since get `is_checked: true`).
 * The item tree view's state is found in either form of `views`: a list of views (the
 * one with `class: ItemTreeView`, its `state`), or, before Choreonoid 1.6, a mapping
 * from view names to states (key "Items" or "ItemTreeView"); it is written back in the
 * form it was read in.
 *
 * Sub-projects: a Base/SubProjectItem loads its file's items beneath it (their ids are
 * the sub-project file's, so they are cleared); those items are not written into the
 * parent file: a save writes each changed sub-project to its own file
 * (km_cnoid_build_sub_projects), as Choreonoid does, unless another program changed that
 * file since (km_cnoid_sub_save_check): then nothing is written. A sub-project that
 * includes itself, directly or not, is refused with a message; messages from inside a
 * sub-project name the innermost file first, then "included from FILE:LINE:COLUMN".
 *
 * Path variables: ${SHARE} is @share_dir (a relative one is relative to the working
 * directory), else $KINEMA_CHOREONOID_SHARE, else the `share/`
 * folder of a project kept in `share/project/`, else an installed Choreonoid's share
 * folder (km_cnoid_find_share_dir).
 *
 * File references (`file`, `filename`, … in the items' data): saved into the folder the
 * project was read from, they are written as they were read. Saved into another folder,
 * and for new absolute references, each is written as the first of these that the reader
 * resolves to the same file: with the ${VAR} it was read with; relative when inside the
 * project's folder; ${SHARE}/…, ${PROGRAM_TOP}/…; relative with "../" when it does not
 * climb out of $HOME (both inside $HOME, or both outside it with a common folder at least
 * two levels below the root); ${HOME}/…; absolute (the
 * comment above write_file_references in km-cnoid.c gives the reasons). ${SHARE} there
 * is what a reader of the saved file gets: the share folder given to the load, else the
 * one km_cnoid_find_share_dir finds for the new place (not a share/ found only from the
 * old place).
 *
 * Writing: Choreonoid's layout (km_yaml_emit), the items in each item's original key order
 * with keys we do not interpret kept in place, a blank line after `optional_plugins`, and
 * the layout sections only when km_project_get_save_layout() is on. For a file Kinema
 * wrote, an unmodified load → save is byte-identical; for a file Choreonoid wrote, only
 * whitespace Choreonoid's older writer left behind differs (trailing spaces after "key:"
 * and "-", "[  ]" for an empty list). Saving is atomic (temporary file, fsync, rename): a
 * failed save leaves the old file as it was.
 */

extern const KmFormat km_format_cnoid;   /* "CNOID-PROJECT", KM_FILE_KIND_PROJECT */

#define KM_CNOID_MAX_SUB_PROJECT_DEPTH 16
/* Sub-project files read in one load, all levels together (a file may include the same
 * sub-project many times, and every level multiplies). */
#define KM_CNOID_MAX_SUB_PROJECTS      1024

KmProject  *km_cnoid_load               (const char        *path,
                                         GError           **error);
/* @contents: the file's bytes, or NULL to read @path. @share_dir: ${SHARE}, or NULL for
 * the default (see above). */
KmProject  *km_cnoid_load_full          (const char        *path,
                                         GBytes            *contents,
                                         const char        *share_dir,
                                         GError           **error);
/* The text km_cnoid_save would write to @path (file references written for @path's
 * folder, see above). Does not change the project. */
char       *km_cnoid_to_string          (KmProject         *project,
                                         const char        *path,
                                         gsize             *length,
                                         GError           **error);
/* Writes atomically; on success the items keep the ids they were written with, the
 * project's file becomes @path and it is marked clean. */
gboolean    km_cnoid_save               (KmProject         *project,
                                         const char        *path,
                                         GError           **error);
/* The two halves of km_cnoid_save() around a write made elsewhere (on a worker thread):
 * the text it would write to @path and the ids it gives new items (a table of referenced
 * KmItem → gint64 *), and, once that text is written, the items taking those ids (the
 * project's file and clean state are the caller's). Both on the thread the project lives
 * on. */
char       *km_cnoid_to_string_for_save (KmProject         *project,
                                         const char        *path,
                                         gsize             *length,
                                         GHashTable       **ids);
void        km_cnoid_saved              (KmProject         *project,
                                         GHashTable        *ids);
/* km_cnoid_to_string_for_save() in two halves, so that the costly one runs on a worker:
 * the file's tree and (@ids nullable) the ids it gives new items, on the project's thread;
 * then its text, on any thread. The tree is the caller's and no one changes it: it holds
 * nodes the items share (parsed nodes are immutable, with atomic reference counts) and
 * deferred nodes over copies (an animation's frames, km_yaml_node_new_deferred), built
 * when the text is. */
KmYamlNode *km_cnoid_build_tree         (KmProject         *project,
                                         const char        *path,
                                         GHashTable       **ids);
/* km_cnoid_build_tree() that also counts in *@n_share_dropped the file references read
 * through ${SHARE} or ${PROGRAM_TOP} (the folder above it) that it writes as absolute
 * paths: ${SHARE} was found from the project's old place (a share/ above share/project/),
 * @path has none (see "Path variables" above), and no relative path or ${HOME}/… leads to
 * the file from there. */
KmYamlNode *km_cnoid_build_tree_full    (KmProject         *project,
                                         const char        *path,
                                         GHashTable       **ids,
                                         guint             *n_share_dropped);
/* What a save says when km_cnoid_build_tree_full() counted @n_share_dropped > 0: "N file
 * references were written as absolute paths, not ${SHARE}/… or ${PROGRAM_TOP}/…: …",
 * translated, for the saved file's name to go before it ("FILE: …"). The editor's Save As
 * and `kinema-cli convert` say the same. */
char       *km_cnoid_share_dropped_message (guint           n_share_dropped);
/* km_cnoid_build_tree() that also gives in *@warnings (a new array of translated strings,
 * empty when there is nothing to say) what the save should tell the user, for the saved
 * file's name to go before each ("FILE: …"): km_cnoid_share_dropped_message() when
 * references read through ${SHARE} were written absolute, and one message for each file
 * written as an absolute path because a relative one would climb out of $HOME (the
 * project inside the home folder, the file outside it). */
KmYamlNode *km_cnoid_build_tree_warned  (KmProject         *project,
                                         const char        *path,
                                         GHashTable       **ids,
                                         GPtrArray        **warnings);
char       *km_cnoid_tree_to_string     (const KmYamlNode  *tree,
                                         gsize             *length);
/* km_cnoid_tree_to_string()'s text, after @head (nullable: nothing), saved to @path as
 * km_format_save_data_full() saves (@new_mode for a new file; the same errors), written
 * as it is made (km_format_save_stream()): never whole in memory. */
gboolean    km_cnoid_tree_save          (const KmYamlNode  *tree,
                                         const char        *head,
                                         const char        *path,
                                         int                new_mode,
                                         GError           **error);
/* The sub-projects of @project read from their files, each to be saved to its file (the
 * innermost first), as km_cnoid_save() does before the project: km_cnoid_build_sub_projects
 * makes their trees on the project's thread (a GPtrArray of KmCnoidSubSave, freed with it);
 * km_cnoid_sub_save_write, on any thread, makes one's text and writes it atomically unless
 * it is what was last read or written there (an unchanged sub-project is not rewritten);
 * km_cnoid_sub_save_done, on the project's thread, gives its items the ids it wrote, also
 * after a later failure (what was written is on disk).
 * km_cnoid_sub_save_check, on any thread and for every sub-project before any is written
 * (km_cnoid_save does), refuses to write over another program's change: a sub-project it
 * would write whose file no longer holds the bytes last read or written there fails with
 * G_IO_ERROR_WRONG_ETAG (changed, or cannot be read) or G_IO_ERROR_NOT_FOUND (deleted or
 * moved), the message naming the file; two copies of one file with different changes with
 * G_IO_ERROR_EXISTS. km_cnoid_sub_save_get_found is then what the file holds (an opaque
 * string, NULL when it cannot be read); given to km_cnoid_accept_sub_project_file, on the
 * project's thread, the next save writes over that version (the user chose to), but not
 * over a later change. */
typedef struct _KmCnoidSubSave KmCnoidSubSave;
GPtrArray  *km_cnoid_build_sub_projects (KmProject         *project);
const char *km_cnoid_sub_save_get_path  (KmCnoidSubSave    *save);
gboolean    km_cnoid_sub_save_check     (KmCnoidSubSave    *save,
                                         GError           **error);
const char *km_cnoid_sub_save_get_found (KmCnoidSubSave    *save);
void        km_cnoid_accept_sub_project_file (KmProject    *project,
                                              const char   *path,
                                              const char   *found);
/* Whether km_cnoid_sub_save_write() wrote the file (until km_cnoid_sub_save_done()). */
gboolean    km_cnoid_sub_save_get_written (KmCnoidSubSave  *save);
gboolean    km_cnoid_sub_save_write     (KmCnoidSubSave    *save,
                                         GError           **error);
void        km_cnoid_sub_save_done      (KmCnoidSubSave    *save);
/* An autosave's copies of the sub-projects that differ from their files (and of those
 * holding one, however deep), in a folder of the autosave's: km_cnoid_take_sub_copies, on
 * the project's thread, picks them, makes their trees and has their items refer to the
 * copies until km_cnoid_put_back_sub_copies (once the autosave's tree is made);
 * km_cnoid_sub_copies_write, on any thread, writes them and an index of the files they
 * stand for; km_cnoid_sub_copies_free on the project's thread. A recovery reads the
 * autosave, then km_cnoid_restore_sub_copies gives those items their own files back, their
 * edits kept and still to be saved there. */
typedef struct _KmCnoidSubCopies KmCnoidSubCopies;
KmCnoidSubCopies *km_cnoid_take_sub_copies     (KmProject         *project,
                                                const char        *dir);
void              km_cnoid_put_back_sub_copies (KmCnoidSubCopies  *copies);
gboolean          km_cnoid_sub_copies_write    (KmCnoidSubCopies  *copies,
                                                GError           **error);
void              km_cnoid_sub_copies_free     (KmCnoidSubCopies  *copies);
void              km_cnoid_restore_sub_copies  (KmProject         *project,
                                                const char        *dir);
/* ${SHARE} for a project at @project_path when none is given: $KINEMA_CHOREONOID_SHARE,
 * else the `share/` above a `share/project/` folder holding the project, else an installed
 * Choreonoid's (`choreonoid-X.Y/` with `model/` in $XDG_DATA_DIRS, newest first), else
 * NULL. */
char       *km_cnoid_find_share_dir     (const char        *project_path);
/* The project's text (the file's bytes) on @item while the reader restores it, NULL
 * before and after: the `frames` of a long IK animation are a table (km_yaml_table_*)
 * whose frames the item reads from that text. Not owned: the reader keeps @text alive
 * until it sets NULL again. */
void        km_cnoid_set_item_text      (KmItem            *item,
                                         GBytes            *text);
GBytes     *km_cnoid_get_item_text      (KmItem            *item);
/* The folder @project's relative item references are relative to: the one it was read
 * from (its items keep their references as read, also after a save elsewhere), else the
 * folder of its file, else NULL. */
char       *km_cnoid_reference_dir      (KmProject         *project);
/* An item reference as the project file writes it: an id, or a list of an id and the
 * names of sub-items below it. NULL when it does not resolve. */
KmItem     *km_cnoid_resolve_reference  (KmItem            *root,
                                         const KmYamlNode  *reference);
/* The path of a file a project (@io) refers to by @reference (@expanded: as
 * km_item_io_expand_path expands it), for messages and for reading it: a plain relative
 * reference joined to the project's path as given, else @expanded. */
char       *km_cnoid_shown_path         (const KmItemIo    *io,
                                         const char        *reference,
                                         const char        *expanded);
/* The path an item reads the file its data names from (@reference, written at @at in the
 * project @io): the one the user knows it by (km_cnoid_shown_path), so that the file's own
 * errors name it so. NULL when @reference cannot be expanded (an unset path variable), which
 * is then the item's problem. */
char       *km_cnoid_item_file_path     (KmItemIo          *io,
                                         KmItem            *item,
                                         const char        *reference,
                                         const KmYamlNode  *at);
/* For an item whose file (named at @at in the project @io) failed to load with @error:
 * sets the item's problem and reports it. A missing file is a problem of the reference
 * ("PROJECT:LINE:COLUMN: …"); an error inside the file, and a file that is there but
 * cannot be read (a folder: "FILE:1:1: cannot read the file: …"), keeps its own location
 * first, then "included from PROJECT:LINE:COLUMN" (DESIGN.md, "Error locations"), and
 * the item's problem is that first line. */
void        km_cnoid_report_file_error  (KmItemIo          *io,
                                         KmItem            *item,
                                         const KmYamlNode  *at,
                                         const GError      *error);
/* `kinema-cli info` output: one line per item (indented two spaces per level:
 * `ID PLUGIN/CLASS "NAME"`, marked ` [verbatim]` when kept unread, ` [sub-project]` for
 * items read from a sub-project file, ` [not shown]` for a body without its model), then
 * `items=N unknown=M bodies=K` (items written in the file, the root included). */
void        km_cnoid_describe           (KmProject         *project,
                                         GString           *out);

G_END_DECLS
