/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-cnoid"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "km-body-item.h"
#include "km-body-motion-item.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-folder-item.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-pose-seq-item.h"
#include "km-root-item.h"
#include "km-sub-project-item.h"
#include "km-unknown-item.h"
#include "km-world-item.h"

/* What an item was read from (its mapping), for writing it back in the same key order. */
#define NODE_KEY "km-cnoid-node"
/* A sub-project item's own `children` (if its file had any), written back verbatim. */
#define SUB_CHILDREN_KEY "km-cnoid-sub-children"
/* Set on items read from a sub-project file: they are not written into the parent. */
#define FROM_SUB_KEY "km-cnoid-from-sub"
/* On those items: their id in the sub-project's file (gint64 boxed; their own is cleared). */
#define SUB_ID_KEY "km-cnoid-sub-id"
/* On a sub-project item whose file was read: that project (its root, sections, ids and
 * folders; its items are the sub-project item's children), the file (canonical) and the
 * digest of the text the writer makes of it as last read or written (unchanged: not
 * rewritten, see km_cnoid_build_sub_projects). */
#define SUB_PROJECT_KEY "km-cnoid-sub-project"
#define SUB_PATH_KEY "km-cnoid-sub-path"
#define SUB_DIGEST_KEY "km-cnoid-sub-digest"
/* On that item too: the SHA-256 of its file's bytes as last read or written here, which a
 * save that writes the sub-project checks first (km_cnoid_sub_save_check); NULL once the
 * user chose to write over what another program left there. And on a sub-project's project
 * while it is read: that of the bytes it was read from. */
#define SUB_FILE_KEY "km-cnoid-sub-file"
/* Set on items checked (selected) by the item tree view's `checked` (`selected`) list
 * (Choreonoid 1.x keeps the check marks and the selection there, not in the items). */
#define VIEW_CHECKED_KEY "km-cnoid-view-checked"
#define VIEW_SELECTED_KEY "km-cnoid-view-selected"
/* On the project: the highest id ever read or written (gint64 boxed), and ${SHARE}. */
#define MAX_ID_KEY "km-cnoid-max-id"
#define SHARE_DIR_KEY "km-cnoid-share-dir"
/* ${SHARE} as the caller of the load gave it (--share-dir), NULL when it was found from the
 * project's place (km_cnoid_find_share_dir), which a save elsewhere finds anew. */
#define SHARE_GIVEN_KEY "km-cnoid-share-given"
/* The folder relative file references in the items' data were written against. */
#define LOAD_DIR_KEY "km-cnoid-load-dir"
/* The project's text (GBytes), on an IK animation item while it restores: its `frames`
 * may be a table read from it (see frames_table_depth and km_cnoid_set_item_text). */
#define TEXT_KEY "km-cnoid-text"

typedef struct
{
  const char *plugin;
  const char *klass;
  GType     (*get_type) (void);
  /* The newest `schema` of the item's data we know; 0: the item class checks it. */
  gint64      schema;
} ItemType;

static const ItemType item_types[] = {
  { "Base", "FolderItem", km_folder_item_get_type, 1 },
  { "Base", "RootItem", km_root_item_get_type, 1 },
  { "Base", "SubProjectItem", km_sub_project_item_get_type, 1 },
  { "Body", "BodyItem", km_body_item_get_type, 0 },
  { "Body", "BodyMotionItem", km_body_motion_item_get_type, 0 },
  { "Body", "WorldItem", km_world_item_get_type, 1 },
  { "Kinema", "IKAnimationItem", km_ik_animation_item_get_type, 1 },
  { "Kinema", "IKTargetsItem", km_ik_targets_item_get_type, 1 },
  { "PoseSeq", "PoseSeqItem", km_pose_seq_item_get_type, 0 },
};

/* The keys every item has, in the order Choreonoid writes them; older spellings after. */
enum {
  KEY_ID,
  KEY_NAME,
  KEY_PLUGIN,
  KEY_CLASS,
  KEY_SELECTED,
  KEY_CHECKED,
  KEY_BUILTIN,
  KEY_DATA,
  KEY_CHILDREN,
  N_KEYS
};

static const char * const key_names[N_KEYS] = {
  "id", "name", "plugin", "class", "is_selected", "is_checked", "is_builtin_item", "data",
  "children"
};

static const char * const selected_keys[] = { "is_selected", "isSelected", NULL };
static const char * const checked_keys[] = { "is_checked", "isChecked", NULL };
static const char * const builtin_keys[] = { "is_builtin_item", "isBuiltinItem", NULL };
static const char * const layout_keys[] = {
  "view_areas", "toolbar_layout", "viewAreas", "layoutOfToolBars", NULL
};

typedef struct
{
  KmItemIo    io;
  GHashTable *ids;      /* id → KmItem (borrowed), this file's items */
  GPtrArray  *selected; /* the items marked is_selected (borrowed) */
  KmItem     *root;
  gint64      max_id;
  guint      *n_sub_projects;  /* sub-project files read in the whole load (shared) */
  GBytes     *text;            /* the file */
  guint       n_tables;        /* `frames` tables made (frames_table_depth) */
  guint       n_used;          /* read by an IK animation item */
  GError     *table_error;     /* the first IK animation item with a table that failed */
} LoadContext;

static gboolean
scalar_is (const KmYamlNode *node,
           const char       *value)
{
  return node != NULL && km_yaml_node_get_kind (node) == KM_YAML_SCALAR &&
         g_strcmp0 (km_yaml_node_get_scalar (node, NULL), value) == 0;
}

/* The state of the item tree view in @views, or NULL. Two forms: a list of views, the
 * first with `class: ItemTreeView` holding it under `state` (Choreonoid 1.6 and later),
 * or (Choreonoid 1.5 and older) a mapping from view names to states, keyed "Items" (the
 * view's name) or "ItemTreeView". @index: the view's place in @views (either form). */
static KmYamlNode *
item_tree_state (const KmYamlNode *views,
                 guint            *index)
{
  KmYamlNode *state = NULL;

  if (views == NULL)
    return NULL;
  if (km_yaml_node_get_kind (views) == KM_YAML_MAPPING)
    {
      for (guint i = 0; i < km_yaml_node_get_length (views) && state == NULL; i++)
        {
          KmYamlNode *key = km_yaml_mapping_get_key (views, i);

          if (scalar_is (key, "Items") || scalar_is (key, "ItemTreeView"))
            {
              state = km_yaml_mapping_get_value (views, i);
              if (index != NULL)
                *index = i;
            }
        }
    }
  else if (km_yaml_node_get_kind (views) == KM_YAML_SEQUENCE)
    {
      for (guint i = 0; i < km_yaml_node_get_length (views) && state == NULL; i++)
        {
          KmYamlNode *view = km_yaml_sequence_get (views, i);

          if (km_yaml_node_get_kind (view) != KM_YAML_MAPPING ||
              !scalar_is (km_yaml_mapping_lookup (view, "class"), "ItemTreeView"))
            continue;
          state = km_yaml_mapping_lookup (view, "state");
          if (state == NULL)
            return NULL;
          if (index != NULL)
            *index = i;
        }
    }
  if (state == NULL || km_yaml_node_get_kind (state) != KM_YAML_MAPPING)
    return NULL;
  return state;
}

/* The list @key (`checked`, `selected`) in the item tree view's state (item_tree_state),
 * or NULL; @index: that view's place in @views. */
static KmYamlNode *
view_state_list (const KmYamlNode *views,
                 const char       *key,
                 guint            *index)
{
  KmYamlNode *state = item_tree_state (views, index);
  KmYamlNode *list;

  if (state == NULL)
    return NULL;
  list = km_yaml_mapping_lookup (state, key);
  if (list == NULL || km_yaml_node_get_kind (list) != KM_YAML_SEQUENCE)
    return NULL;
  return list;
}

/**
 * km_cnoid_shown_path:
 * @io: the project being read
 * @reference: a file reference in it, as written
 * @expanded: @reference expanded (km_item_io_expand_path)
 *
 * The path of a file a project refers to, for messages and for the loader reading it
 * (DESIGN.md, "Error locations": the path as given): a plain relative reference joined to
 * the project's path as given ("bad.body", "dir/bad.body"), which opens the same file
 * from the same working folder; one with a path variable or absolute, @expanded.
 */
char *
km_cnoid_shown_path (const KmItemIo *io,
                     const char     *reference,
                     const char     *expanded)
{
  g_autofree char *joined = NULL;
  g_auto(GStrv) parts = NULL;
  g_autoptr(GPtrArray) kept = NULL;

  g_return_val_if_fail (io != NULL && io->file != NULL, NULL);
  g_return_val_if_fail (reference != NULL && expanded != NULL, NULL);

  if (strstr (reference, "${") != NULL || g_path_is_absolute (reference))
    return g_strdup (expanded);
  joined = km_parse_included_path (io->file, reference);
  if (g_path_is_absolute (joined))
    return g_strdup (expanded);
  /* "dir/../x" as "x": "..", like ".", taken lexically, as km_item_io_expand_path does
   * (the kernel would climb out of a symbolically linked dir physically). */
  parts = g_strsplit (joined, "/", -1);
  kept = g_ptr_array_new ();
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0' || strcmp (parts[i], ".") == 0)
        continue;
      if (strcmp (parts[i], "..") == 0 && kept->len > 0 &&
          strcmp (g_ptr_array_index (kept, kept->len - 1), "..") != 0)
        g_ptr_array_remove_index (kept, kept->len - 1);
      else
        g_ptr_array_add (kept, parts[i]);
    }
  if (kept->len == 0)
    return g_strdup (expanded);
  g_ptr_array_add (kept, NULL);
  return g_strjoinv ("/", (char **) kept->pdata);
}

char *
km_cnoid_item_file_path (KmItemIo         *io,
                         KmItem           *item,
                         const char       *reference,
                         const KmYamlNode *at)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (io != NULL, NULL);
  g_return_val_if_fail (KM_IS_ITEM (item), NULL);
  g_return_val_if_fail (reference != NULL, NULL);

  path = km_item_io_expand_path (io, reference, &error);
  if (path == NULL)
    {
      km_item_io_problem (io, item, at, error->message);
      return NULL;
    }
  return km_cnoid_shown_path (io, reference, path);
}

/* Whether @message starts with "FILE:LINE:COLUMN: " (or "FILE: ") for a FILE other than
 * @project's: a message about a file the project names (its model, a missing file). */
static gboolean
located_in_other_file (const char *message,
                       const char *project,
                       gboolean    with_line)
{
  g_autofree char *file = NULL;
  KmSourcePos pos = { 0, 0 };

  return km_parse_read_location (message, &file, &pos, NULL) && (pos.line > 0 || !with_line)
         && strcmp (file, project) != 0;
}

void
km_cnoid_report_file_error (KmItemIo         *io,
                            KmItem           *item,
                            const KmYamlNode *at,
                            const GError     *error)
{
  g_autoptr(GError) chained = NULL;
  g_autofree char *first = NULL;

  g_return_if_fail (io != NULL);
  g_return_if_fail (KM_IS_ITEM (item));
  g_return_if_fail (error != NULL);

  /* A file that cannot be read, missing or there (a folder), says so at its start
   * ("FILE:1:1: cannot read the file: …", km_format_load_model_file): chained like any
   * error inside it (DESIGN.md, "Error locations": the innermost file first), not written
   * after the project's location on one line. */
  if (at == NULL || error->domain != KM_PARSE_ERROR ||
      !located_in_other_file (error->message, io->file, TRUE))
    {
      km_item_io_problem (io, item, at, error->message);
      return;
    }
  chained = g_error_copy (error);
  km_parse_error_add_include (&chained, io->file, km_yaml_node_get_pos (at));
  if (io->messages != NULL)
    g_ptr_array_add (io->messages, g_strdup (chained->message));
  first = g_strndup (chained->message, strcspn (chained->message, "\n"));
  km_item_set_problem (item, first);
}

static KmProject *load_project (const char  *path,
                                GBytes      *contents,
                                const char  *share_dir,
                                guint        depth,
                                GPtrArray   *open_files,
                                guint       *n_sub_projects,
                                GPtrArray   *messages,
                                GError     **error);

static int
key_index (const char *key)
{
  if (key == NULL)
    return -1;
  for (int i = 0; i < N_KEYS; i++)
    if (strcmp (key, key_names[i]) == 0)
      return i;
  if (strcmp (key, "isSelected") == 0)
    return KEY_SELECTED;
  if (strcmp (key, "isChecked") == 0)
    return KEY_CHECKED;
  if (strcmp (key, "isBuiltinItem") == 0)
    return KEY_BUILTIN;
  return -1;
}

static void
collect_warning_cb (const char *message,
                    gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* Where an item names the file it loads, while it loads it. */
typedef struct
{
  GPtrArray   *messages;
  const char  *project;   /* the project file, as given */
  KmSourcePos  site;      /* of the item's file reference */
} IncludeSite;

/* A warning about the file an item loads (its model's "FILE:LINE:COLUMN: …"), with
 * "included from" where the project names it, as a sub-project's (DESIGN.md, "Error
 * locations"); one about the project itself as it is. */
static void
collect_included_warning_cb (const char *message,
                             gpointer    user_data)
{
  IncludeSite *site = user_data;
  g_autofree char *shown = NULL;

  if (!located_in_other_file (message, site->project, FALSE))
    {
      g_ptr_array_add (site->messages, g_strdup (message));
      return;
    }
  shown = km_parse_shown_file (site->project);
  g_ptr_array_add (site->messages, g_strdup_printf ("%s\nincluded from %s:%u:%u", message,
                                                    shown, site->site.line,
                                                    MAX (site->site.column, 1)));
}

/* ---------------------------------------------------------------------------------------- */
/* Reading */

static void
report (LoadContext *ctx,
        const char  *message)
{
  g_ptr_array_add (ctx->io.messages, g_strdup (message));
}

static void
note_id (LoadContext *ctx,
         gint64       id)
{
  ctx->max_id = MAX (ctx->max_id, id);
}

/* Ids inside a subtree kept verbatim count as used. */
static void
note_verbatim_ids (LoadContext      *ctx,
                   const KmYamlNode *node,
                   guint             depth)
{
  KmYamlNode *children;
  gint64 id;

  if (node == NULL || km_yaml_node_get_kind (node) != KM_YAML_MAPPING || depth > 256)
    return;
  if (km_yaml_mapping_lookup (node, "id") != NULL &&
      km_yaml_expect_int (km_yaml_mapping_lookup (node, "id"), &id, NULL))
    note_id (ctx, id);
  children = km_yaml_mapping_lookup (node, "children");
  if (children != NULL && km_yaml_node_get_kind (children) == KM_YAML_SEQUENCE)
    for (guint i = 0; i < km_yaml_node_get_length (children); i++)
      note_verbatim_ids (ctx, km_yaml_sequence_get (children, i), depth + 1);
}

static const ItemType *
find_item_type (const char *plugin,
                const char *klass)
{
  for (guint i = 0; i < G_N_ELEMENTS (item_types); i++)
    if (strcmp (item_types[i].plugin, plugin) == 0 && strcmp (item_types[i].klass, klass) == 0)
      return &item_types[i];
  return NULL;
}

static gboolean
is_null_scalar (const KmYamlNode *node)
{
  gsize length;
  const char *s;

  if (km_yaml_node_get_kind (node) != KM_YAML_SCALAR ||
      km_yaml_node_get_style (node) != KM_YAML_STYLE_PLAIN)
    return FALSE;
  s = km_yaml_node_get_scalar (node, &length);
  return length == 0 || strcmp (s, "~") == 0 || g_ascii_strcasecmp (s, "null") == 0;
}

/* The common keys of an item mapping; FALSE with @error when one has the wrong type. */
typedef struct
{
  const char *plugin;
  const char *klass;
  const char *name;
  gint64      id;
  gboolean    selected;
  gboolean    checked;
  gboolean    builtin;
  KmYamlNode *data;
  KmYamlNode *children;
  gboolean    plugin_missing;  /* the root's RootItem without "plugin", read as Base's */
} ItemHeader;

static void
read_header_bool (KmItemIo           *io,
                  const KmYamlNode   *node,
                  const char * const *keys,
                  gboolean           *value)
{
  g_autoptr(GError) error = NULL;
  KmYamlNode *v = km_yaml_mapping_lookup_any (node, keys);
  gboolean b;

  if (v == NULL)
    return;
  if (km_yaml_expect_bool (v, &b, &error))
    *value = b;
  else
    km_item_io_ignore_value (io, v, km_yaml_mapping_key_any (node, keys), &error);
}

/* @root: @node is the project's top item. A RootItem there without its "plugin" (a
 * hand-written project) is still the root, whose plugin can only be Base: it reads as
 * Base/RootItem (h->plugin_missing, to warn of) and its items load below it, rather than
 * the whole tree being kept unread and nothing shown. FALSE with @error only when the
 * item cannot be read (not a mapping, no plugin or class, children that are no list);
 * a malformed optional value (id, name, is_selected, is_checked, is_builtin_item) is
 * warned of through @io and its default used: a bad id is no id, so the item gets a new
 * one, unused by the others, when saved. */
static gboolean
read_header (KmItemIo         *io,
             const KmYamlNode *node,
             gboolean          root,
             ItemHeader       *h,
             GError          **error)
{
  g_autoptr(GError) local = NULL;
  KmYamlNode *v;

  memset (h, 0, sizeof *h);
  h->id = -1;
  if (!km_yaml_expect_mapping (node, error))
    return FALSE;
  if (root && km_yaml_mapping_lookup (node, "plugin") == NULL
      && (v = km_yaml_mapping_lookup (node, "class")) != NULL
      && g_strcmp0 (km_yaml_node_get_scalar (v, NULL), "RootItem") == 0)
    {
      h->plugin = "Base";
      h->plugin_missing = TRUE;
    }
  else if ((v = km_yaml_expect_key (node, "plugin", error)) == NULL ||
           (h->plugin = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  if ((v = km_yaml_expect_key (node, "class", error)) == NULL ||
      (h->klass = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  h->children = km_yaml_mapping_lookup (node, "children");
  if (h->children != NULL && is_null_scalar (h->children))
    h->children = NULL;
  if (h->children != NULL && !km_yaml_expect_sequence (h->children, error))
    return FALSE;

  if ((v = km_yaml_mapping_lookup (node, "id")) != NULL)
    {
      gint64 id;

      if (!km_yaml_expect_int (v, &id, &local))
        km_item_io_ignore_value (io, v, "id", &local);
      else if (id < 0)
        {
          km_parse_error_set (&local, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (v),
                              km_yaml_node_get_pos (v), _("expected an item id ≥ 0"));
          km_item_io_ignore_value (io, v, "id", &local);
        }
      else
        h->id = id;
    }
  if ((v = km_yaml_mapping_lookup (node, "name")) != NULL &&
      (h->name = km_yaml_expect_string (v, &local)) == NULL)
    km_item_io_ignore_value (io, v, "name", &local);
  read_header_bool (io, node, selected_keys, &h->selected);
  read_header_bool (io, node, checked_keys, &h->checked);
  read_header_bool (io, node, builtin_keys, &h->builtin);
  h->data = km_yaml_mapping_lookup (node, "data");
  if (h->data != NULL && is_null_scalar (h->data))
    h->data = NULL;
  return TRUE;
}

static void
mark_from_sub (gpointer item,
               gpointer user_data)
{
  gint64 id = km_item_get_id (item);

  /* Items of a sub-project of the sub-project keep the id of their own file. */
  if (g_object_get_data (item, FROM_SUB_KEY) != NULL)
    return;
  g_object_set_data_full (item, SUB_ID_KEY, g_memdup2 (&id, sizeof id), g_free);
  km_item_set_id (item, -1);
  g_object_set_data (item, FROM_SUB_KEY, GINT_TO_POINTER (1));
}

static char *write_project (KmProject   *project,
                            const char  *path,
                            gsize       *length,
                            GHashTable **ids_out);

static char *
text_digest (const char *text,
             gsize       length)
{
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, length);
}

static void
load_sub_project (LoadContext      *ctx,
                  KmItem           *item,
                  const KmYamlNode *data)
{
  static const char * const file_keys[] = { "file", "filename", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) sub = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autofree char *path = NULL;
  g_autofree char *shown = NULL;
  KmYamlNode *file_node = km_yaml_mapping_lookup_any (data, file_keys);
  KmSourcePos at;
  const char *file;
  KmItem *sub_root;

  at = file_node != NULL ? km_yaml_node_get_pos (file_node) : km_item_get_source_pos (item);
  file = file_node != NULL ? km_yaml_node_get_scalar (file_node, NULL) : NULL;
  if (file == NULL || km_yaml_node_get_kind (file_node) != KM_YAML_SCALAR)
    {
      km_item_set_problem (item, _("the sub-project item names no file"));
      km_item_io_warn (&ctx->io, file_node, "%s", _("the sub-project item names no file"));
      return;
    }
  path = km_item_io_expand_path (&ctx->io, file, &error);
  if (path == NULL)
    {
      km_item_set_problem (item, error->message);
      km_item_io_warn (&ctx->io, file_node, "%s", error->message);
      return;
    }
  for (guint i = 0; i < ctx->io.open_files->len; i++)
    if (strcmp (g_ptr_array_index (ctx->io.open_files, i), path) == 0)
      {
        g_autofree char *message =
          g_strdup_printf (_("the sub-project “%s” includes itself; it is not loaded again"),
                           file);

        km_item_set_problem (item, message);
        km_item_io_warn (&ctx->io, file_node, "%s", message);
        return;
      }
  if (ctx->io.depth + 1 > KM_CNOID_MAX_SUB_PROJECT_DEPTH)
    {
      g_autofree char *message =
        g_strdup_printf (_("sub-projects are nested more than %d deep; “%s” is not loaded"),
                         KM_CNOID_MAX_SUB_PROJECT_DEPTH, file);

      km_item_set_problem (item, message);
      km_item_io_warn (&ctx->io, file_node, "%s", message);
      return;
    }

  /* Depth alone does not bound the work: every level may include many sub-projects. */
  if (++*ctx->n_sub_projects > KM_CNOID_MAX_SUB_PROJECTS)
    {
      g_autofree char *message =
        g_strdup_printf (_("more than %d sub-projects in all; “%s” is not loaded"),
                         KM_CNOID_MAX_SUB_PROJECTS, file);

      km_item_set_problem (item, message);
      km_item_io_warn (&ctx->io, file_node, "%s", message);
      return;
    }

  /* Messages name the sub-project as the user would (DESIGN.md, "Error locations"). */
  shown = km_cnoid_shown_path (&ctx->io, file, path);
  messages = g_ptr_array_new_with_free_func (g_free);
  sub = load_project (shown, NULL, ctx->io.share_dir, ctx->io.depth + 1, ctx->io.open_files,
                      ctx->n_sub_projects, messages, &error);
  for (guint i = 0; i < messages->len; i++)
    {
      g_autofree char *site = km_parse_location (ctx->io.file, at);

      g_ptr_array_add (ctx->io.messages,
                       g_strdup_printf ("%s\nincluded from %s",
                                        (char *) g_ptr_array_index (messages, i), site));
    }
  if (sub == NULL)
    {
      /* As for a model (DESIGN.md, "Error locations"): a missing file is a problem of the
       * reference, at the project's location ("p.cnoid:12:15: sub.cnoid:1:1: cannot read
       * the file: …"); one that is there (a folder, bad YAML) is located in it first. */
      km_cnoid_report_file_error (&ctx->io, item, file_node, error);
      return;
    }

  /* What Save compares with: the text written for the sub-project as it was read (for a
   * file Choreonoid wrote, not the file's own bytes, see km_cnoid_build_sub_projects). */
  {
    g_autofree char *canonical = g_canonicalize_filename (path, NULL);
    g_autofree char *text = NULL;
    gsize length = 0;

    text = write_project (sub, canonical, &length, NULL);
    g_object_set_data_full (G_OBJECT (item), SUB_DIGEST_KEY, text_digest (text, length), g_free);
    g_object_set_data_full (G_OBJECT (item), SUB_PATH_KEY, g_steal_pointer (&canonical), g_free);
    g_object_set_data_full (G_OBJECT (item), SUB_FILE_KEY,
                            g_object_steal_data (G_OBJECT (sub), SUB_FILE_KEY), g_free);
    g_object_set_data_full (G_OBJECT (item), SUB_PROJECT_KEY, g_object_ref (sub),
                            g_object_unref);
  }
  sub_root = km_project_get_root_item (sub);
  while (km_item_get_n_children (sub_root) > 0)
    {
      g_autoptr(KmItem) child = g_object_ref (km_item_get_child (sub_root, 0));

      km_item_remove_child (sub_root, child);
      km_item_foreach (child, mark_from_sub, NULL);
      km_item_append_child (item, child);
    }
}

static KmItem *load_item (LoadContext *ctx,
                          KmItem      *parent,
                          KmYamlNode  *node,
                          guint        depth);

/*
 * An IK animation item's inline `frames` are most of a project with a long animation, some
 * six YAML nodes a joint value, over the node limit (KM_YAML_DEFAULT_MAX_NODES) at a few
 * hundred thousand values. They are read as a table (km_yaml_parse_with_tables): one item a
 * frame, kept as no node, which the item reads again from the text one frame at a time
 * (km_yaml_table_foreach_item), with the checks and error locations of a tree. Which
 * `frames` those are is known only from the item's data read so far (its class comes in
 * the mapping above): a `frames` after a `frame_rate`, as the item writes them, in data
 * that names no file. When a table is not read by an IK animation item (another item's
 * data, a key of an item kept verbatim or that failed to load) or holds an anchor or
 * alias, the project is read again without tables, as before.
 */
static guint
frames_table_depth (const KmYamlNode *mapping,
                    const KmYamlNode *key,
                    guint             depth,
                    gpointer          user_data)
{
  static const char * const file_keys[] = { "file", "filename", NULL };
  LoadContext *ctx = user_data;

  if (depth < 2 || g_strcmp0 (km_yaml_node_get_scalar (key, NULL), "frames") != 0 ||
      km_yaml_mapping_lookup (mapping, "frame_rate") == NULL ||
      km_yaml_mapping_lookup_any (mapping, file_keys) != NULL)
    return 0;
  ctx->n_tables++;
  return 1;
}

/* Has @item, restored from @data, read (or failed to read) its frames from a table? */
static gboolean
frames_table_read (KmItem           *item,
                   const KmYamlNode *data)
{
  KmYamlNode *frames;

  if (!KM_IS_IK_ANIMATION_ITEM (item) ||
      km_ik_animation_item_get_file (KM_IK_ANIMATION_ITEM (item)) != NULL ||
      data == NULL || km_yaml_node_get_kind (data) != KM_YAML_MAPPING)
    return FALSE;
  frames = km_yaml_mapping_lookup (data, "frames");
  return frames != NULL && km_yaml_table_get_depth (frames) > 0;
}

static KmItem *
keep_verbatim (LoadContext *ctx,
               KmItem      *parent,
               guint        position,
               KmYamlNode  *node)
{
  KmItem *item = km_unknown_item_new (node, TRUE);

  note_verbatim_ids (ctx, node, 0);
  if (km_item_get_id (item) >= 0)
    {
      if (g_hash_table_contains (ctx->ids, &(gint64) { km_item_get_id (item) }))
        km_item_set_id (item, -1);
      else
        {
          gint64 *key = g_new (gint64, 1);

          *key = km_item_get_id (item);
          g_hash_table_insert (ctx->ids, key, item);
        }
    }
  if (parent != NULL)
    {
      km_item_insert_child (parent, position, item);
      g_object_unref (item);
    }
  return item;
}

/* km_item_restore(), the warnings of a file the item loads (a model) located as coming
 * from where @data names it. */
static gboolean
restore_item (LoadContext       *ctx,
              KmItem            *item,
              const KmYamlNode  *data,
              GError           **error)
{
  static const char * const file_keys[] = { "file", "filename", NULL };
  KmYamlNode *file_node = data != NULL && km_yaml_node_get_kind (data) == KM_YAML_MAPPING
                          ? km_yaml_mapping_lookup_any (data, file_keys) : NULL;
  IncludeSite site = { ctx->io.messages, ctx->io.file, { 0, 0 } };
  gboolean restored;

  if (file_node == NULL || ctx->io.messages == NULL)
    return km_item_restore (item, data, &ctx->io, error);
  site.site = km_yaml_node_get_pos (file_node);
  km_parse_warnings_push (collect_included_warning_cb, &site);
  restored = km_item_restore (item, data, &ctx->io, error);
  km_parse_warnings_pop ();
  return restored;
}

static KmItem *
load_item (LoadContext *ctx,
           KmItem      *parent,
           KmYamlNode  *node,
           guint        depth)
{
  g_autoptr(GError) error = NULL;
  const ItemType *type;
  ItemHeader h;
  KmItem *item;
  gboolean restored;
  guint position = parent != NULL ? km_item_get_n_children (parent) : 0;

  if (!read_header (&ctx->io, node, parent == NULL && depth == 0, &h, &error))
    {
      report (ctx, error->message);
      return keep_verbatim (ctx, parent, position, node);
    }
  if (h.plugin_missing)
    km_item_io_warn (&ctx->io, node, _("missing key “plugin”; read as “Base/RootItem”"));

  type = find_item_type (h.plugin, h.klass);
  if (type == NULL)
    {
      item = km_unknown_item_new (node, FALSE);
      km_item_io_warn (&ctx->io, km_yaml_mapping_lookup (node, "class"),
                       _("unknown item type “%s/%s”; it is kept as it is"), h.plugin, h.klass);
    }
  else
    {
      item = g_object_new (type->get_type (), NULL);
      km_item_set_name (item, h.name);
      km_item_set_id (item, h.id);
      km_item_set_checked (item, h.checked);
      km_item_set_builtin (item, h.builtin);
      km_item_set_source_pos (item, km_yaml_node_get_pos (node));
    }
  g_object_set_data_full (G_OBJECT (item), NODE_KEY, km_yaml_node_ref (node),
                          (GDestroyNotify) km_yaml_node_unref);
  if (parent != NULL)
    {
      km_item_insert_child (parent, position, item);
      g_object_unref (item);
    }

  if (type != NULL)
    {
      if (h.data != NULL && type->schema > 0)
        {
          KmYamlNode *schema = km_yaml_mapping_lookup (h.data, "schema");
          gint64 version;

          if (schema != NULL && (!km_yaml_expect_int (schema, &version, NULL) ||
                                 version > type->schema))
            km_item_io_warn (&ctx->io, schema,
                             _("“%s/%s” data schema %s is newer than %lld"
                               " that Kinema knows; loading what can be read"),
                             h.plugin, h.klass, km_yaml_node_get_scalar (schema, NULL) != NULL ?
                             km_yaml_node_get_scalar (schema, NULL) : "?",
                             (long long) type->schema);
        }
      if (KM_IS_IK_ANIMATION_ITEM (item))
        km_cnoid_set_item_text (item, ctx->text);
      restored = restore_item (ctx, item, h.data, &error);
      km_cnoid_set_item_text (item, NULL);
      if (restored && frames_table_read (item, h.data))
        ctx->n_used++;
      if (!restored && frames_table_read (item, h.data) && ctx->table_error == NULL)
        ctx->table_error = g_error_copy (error);
      if (!restored)
        {
          report (ctx, error->message);
          if (parent == NULL)
            {
              g_object_unref (item);
              return keep_verbatim (ctx, NULL, 0, node);
            }
          km_item_remove_child (parent, item);
          return keep_verbatim (ctx, parent, position, node);
        }
    }

  if (h.id >= 0)
    {
      note_id (ctx, h.id);
      if (g_hash_table_contains (ctx->ids, &h.id))
        {
          km_item_io_warn (&ctx->io, km_yaml_mapping_lookup (node, "id"),
                           _("another item already has the id %lld; this one "
                             "gets a new id when saved"), (long long) h.id);
          km_item_set_id (item, -1);
        }
      else
        {
          gint64 *key = g_new (gint64, 1);

          *key = h.id;
          g_hash_table_insert (ctx->ids, key, item);
        }
    }

  if (h.selected)
    g_ptr_array_add (ctx->selected, item);

  if (KM_IS_SUB_PROJECT_ITEM (item))
    {
      if (h.children != NULL && km_yaml_node_get_length (h.children) > 0)
        {
          note_verbatim_ids (ctx, node, 0);
          g_object_set_data_full (G_OBJECT (item), SUB_CHILDREN_KEY,
                                  km_yaml_node_ref (h.children),
                                  (GDestroyNotify) km_yaml_node_unref);
        }
      load_sub_project (ctx, item, h.data);
      return item;
    }

  for (guint i = 0; h.children != NULL && i < km_yaml_node_get_length (h.children); i++)
    load_item (ctx, item, km_yaml_sequence_get (h.children, i), depth + 1);
  return item;
}

/* A reference ID or [ID, NAME, …] (a child by name below the item with ID, and so on),
 * the item by id looked up in @by_id when given, else in the tree below @root. */
static KmItem *
resolve_reference (KmItem           *root,
                   GHashTable       *by_id,
                   const KmYamlNode *reference)
{
  const KmYamlNode *first = reference;
  gboolean is_path = km_yaml_node_get_kind (reference) == KM_YAML_SEQUENCE;
  KmItem *item;
  gint64 id;

  if (is_path)
    {
      if (km_yaml_node_get_length (reference) == 0)
        return NULL;
      first = km_yaml_sequence_get (reference, 0);
    }
  if (km_yaml_node_get_kind (first) != KM_YAML_SCALAR ||
      !km_yaml_expect_int (first, &id, NULL) || id < 0)
    return NULL;
  item = by_id != NULL ? g_hash_table_lookup (by_id, &id) : km_item_find_by_id (root, id);
  for (guint i = 1; is_path && i < km_yaml_node_get_length (reference) && item != NULL; i++)
    {
      KmYamlNode *name = km_yaml_sequence_get (reference, i);

      if (km_yaml_node_get_kind (name) != KM_YAML_SCALAR)
        return NULL;
      item = km_item_find_child_by_name (item, km_yaml_node_get_scalar (name, NULL));
    }
  return item;
}

KmItem *
km_cnoid_resolve_reference (KmItem           *root,
                            const KmYamlNode *reference)
{
  g_return_val_if_fail (KM_IS_ITEM (root), NULL);
  g_return_val_if_fail (reference != NULL, NULL);

  return resolve_reference (root, NULL, reference);
}

/* Keys that hold item references by Choreonoid's naming ("body_item", "currentBodyItem",
 * "target_item", "currentPoseSeqItem"). */
static gboolean
is_reference_key (const char *key)
{
  return key != NULL && (g_str_has_suffix (key, "_item") || g_str_has_suffix (key, "Item"));
}

static gboolean
looks_like_reference (const KmYamlNode *value)
{
  gint64 id;

  if (km_yaml_node_get_kind (value) == KM_YAML_SCALAR)
    return km_yaml_expect_int (value, &id, NULL);
  if (km_yaml_node_get_kind (value) == KM_YAML_SEQUENCE && km_yaml_node_get_length (value) >= 2)
    {
      if (!km_yaml_expect_int (km_yaml_sequence_get (value, 0), &id, NULL))
        return FALSE;
      for (guint i = 1; i < km_yaml_node_get_length (value); i++)
        {
          KmYamlNode *name = km_yaml_sequence_get (value, i);

          if (km_yaml_node_get_kind (name) != KM_YAML_SCALAR ||
              km_yaml_expect_int (name, &id, NULL))
            return FALSE;
        }
      return TRUE;
    }
  return FALSE;
}

static void
check_references (LoadContext      *ctx,
                  KmItem           *root,
                  const KmYamlNode *node,
                  guint             depth)
{
  if (node == NULL || depth > 64)
    return;
  if (km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE)
    for (guint i = 0; i < km_yaml_node_get_length (node); i++)
      check_references (ctx, root, km_yaml_sequence_get (node, i), depth + 1);
  if (km_yaml_node_get_kind (node) != KM_YAML_MAPPING)
    return;
  for (guint i = 0; i < km_yaml_node_get_length (node); i++)
    {
      KmYamlNode *value = km_yaml_mapping_get_value (node, i);
      const char *key = km_yaml_node_get_scalar (km_yaml_mapping_get_key (node, i), NULL);

      if (g_strcmp0 (key, "items") == 0 && depth == 0)
        continue;
      if (is_reference_key (key) && looks_like_reference (value))
        {
          if (km_cnoid_resolve_reference (root, value) == NULL)
            km_item_io_warn (&ctx->io, value,
                             _("“%s” refers to an item that is not in the project"), key);
          continue;
        }
      check_references (ctx, root, value, depth + 1);
    }
}

static void
check_item_references (gpointer item,
                       gpointer user_data)
{
  LoadContext *ctx = user_data;

  if (KM_IS_UNKNOWN_ITEM (item) && km_unknown_item_get_verbatim_children (item))
    return;
  if (g_object_get_data (item, FROM_SUB_KEY) != NULL)
    return;
  check_references (ctx, ctx->root,
                    km_yaml_mapping_lookup (g_object_get_data (item, NODE_KEY), "data"), 1);
}

static KmItem *
first_body (KmItem *item)
{
  if (KM_IS_BODY_ITEM (item) && km_body_item_get_skeleton (KM_BODY_ITEM (item)) != NULL)
    return item;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *found = first_body (km_item_get_child (item, i));

      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char * const current_body_keys[] = { "current_body_item", "currentBodyItem", NULL };

/* The body a project's @sections say is current: the BodySelectionManager's, or the older
 * Choreonoid's body bar's `current`, or else the first body. */
static KmItem *
named_current_body (KmItem     *root,
                    KmYamlNode *sections)
{
  KmYamlNode *manager;
  KmYamlNode *ref;
  KmItem *body = NULL;

  manager = km_yaml_mapping_lookup (km_yaml_mapping_lookup (sections, "Body"),
                                    "BodySelectionManager");
  if ((ref = km_yaml_mapping_lookup_any (manager, current_body_keys)) != NULL)
    body = km_cnoid_resolve_reference (root, ref);
  /* Older Choreonoid: the body bar's `current`. */
  if ((body == NULL || !KM_IS_BODY_ITEM (body)) &&
      (ref = km_yaml_mapping_lookup (km_yaml_mapping_lookup (km_yaml_mapping_lookup (
         sections, "toolbars"), "BodyBar"), "current")) != NULL)
    body = km_cnoid_resolve_reference (root, ref);
  if (body == NULL || !KM_IS_BODY_ITEM (body))
    body = first_body (root);
  return body;
}

static void
choose_current_body (KmProject  *project,
                     KmYamlNode *sections)
{
  KmItem *body = named_current_body (km_project_get_root_item (project), sections);

  if (body != NULL)
    km_project_set_current_body (project, body);
}

static void
add_item_by_id (gpointer item,
                gpointer user_data)
{
  gint64 id = km_item_get_id (item);

  if (id >= 0 && !g_hash_table_contains (user_data, &id))
    g_hash_table_insert (user_data, g_memdup2 (&id, sizeof id), item);
}

/* The items below @root by id (the first holder of each), for resolving many references. */
static GHashTable *
items_by_id (KmItem *root)
{
  GHashTable *table = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  km_item_foreach (root, add_item_by_id, table);
  return table;
}

static gboolean
is_selected (KmProject *project,
             KmItem    *item)
{
  GListModel *selection = km_project_get_selection (project);

  for (guint i = 0; i < g_list_model_get_n_items (selection); i++)
    {
      g_autoptr(KmItem) selected = g_list_model_get_item (selection, i);

      if (selected == item)
        return TRUE;
    }
  return FALSE;
}

/* Choreonoid 1.x: the items in the item tree view's `checked` list are checked, the
 * ones in its `selected` list selected, as `is_checked` and `is_selected` do in 2.x. The
 * ids in both count as used (@max_id), so that no new item comes to be checked or
 * selected by a stale entry. */
static void
apply_view_lists (KmProject  *project,
                  KmYamlNode *sections,
                  gint64     *max_id)
{
  static const char * const keys[] = { "checked", "selected" };
  KmYamlNode *views = km_yaml_mapping_lookup (sections, "views");
  g_autoptr(GHashTable) by_id = NULL;

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      KmYamlNode *list = view_state_list (views, keys[k], NULL);
      gboolean selecting = k == 1;

      if (list == NULL)
        continue;
      if (by_id == NULL)
        by_id = items_by_id (km_project_get_root_item (project));
      for (guint i = 0; i < km_yaml_node_get_length (list); i++)
        {
          KmYamlNode *entry = km_yaml_sequence_get (list, i);
          KmItem *item = resolve_reference (NULL, by_id, entry);
          gint64 id;

          if (km_yaml_node_get_kind (entry) == KM_YAML_SEQUENCE &&
              km_yaml_node_get_length (entry) > 0)
            entry = km_yaml_sequence_get (entry, 0);
          if (km_yaml_expect_int (entry, &id, NULL))
            *max_id = MAX (*max_id, id);

          if (item == NULL)
            continue;
          if (selecting)
            {
              if (is_selected (project, item))
                continue;
              km_project_select (project, item, TRUE);
              g_object_set_data (G_OBJECT (item), VIEW_SELECTED_KEY, GINT_TO_POINTER (1));
            }
          else
            {
              if (km_item_get_checked (item))
                continue;
              km_item_set_checked (item, TRUE);
              g_object_set_data (G_OBJECT (item), VIEW_CHECKED_KEY, GINT_TO_POINTER (1));
            }
        }
    }
}

/* With @tables, IK animation frames as tables (see frames_table_depth); NULL without an
 * error and *@retry set when the project must be read again without. */
static KmProject *
load_project_once (const char  *path,
                   GBytes      *contents,
                   const char  *share_dir,
                   guint        depth,
                   GPtrArray   *open_files,
                   guint       *n_sub_projects,
                   GPtrArray   *messages,
                   gboolean     tables,
                   gboolean    *retry,
                   GError     **table_error,
                   GError     **error)
{
  g_autoptr(KmYamlNode) top = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmYamlNode) sections = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *found_share = NULL;
  LoadContext ctx = { 0, };
  KmYamlNode *items;
  KmItem *root;
  const char *data;
  gsize length;

  data = g_bytes_get_data (contents, &length);
  ctx.text = contents;
  if (tables)
    top = km_yaml_parse_with_tables (path, data != NULL ? data : "", length, NULL,
                                     frames_table_depth, &ctx, retry, error);
  else
    top = km_yaml_parse (path, data != NULL ? data : "", length, NULL, error);
  if (top == NULL)
    return NULL;
  if (km_yaml_node_get_kind (top) != KM_YAML_MAPPING)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, km_yaml_node_get_pos (top),
                          _("expected a project: a mapping with “items”"));
      return NULL;
    }
  if ((items = km_yaml_expect_key (top, "items", error)) == NULL ||
      !km_yaml_expect_mapping (items, error))
    return NULL;

  project = km_project_new ();
  km_project_set_file (project, path);
  if (share_dir == NULL)
    share_dir = found_share = km_cnoid_find_share_dir (path);
  if (messages == NULL)
    messages = km_project_get_messages (project);

  dir = g_path_get_dirname (path);
  canonical = g_canonicalize_filename (path, NULL);
  ctx.io.file = path;
  ctx.io.dir = dir;
  ctx.io.share_dir = share_dir;
  ctx.io.messages = messages;
  ctx.io.depth = depth;
  ctx.io.open_files = open_files;
  ctx.n_sub_projects = n_sub_projects;
  ctx.ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  ctx.max_id = -1;
  ctx.selected = g_ptr_array_new ();
  g_ptr_array_add (open_files, canonical);

  km_parse_warnings_push (collect_warning_cb, messages);
  root = load_item (&ctx, NULL, items, 0);
  km_parse_warnings_pop ();
  g_ptr_array_remove_index (open_files, open_files->len - 1);
  km_project_set_root_item (project, root);
  g_object_unref (root);
  for (guint i = 0; i < ctx.selected->len; i++)
    km_project_select (project, g_ptr_array_index (ctx.selected, i), TRUE);
  g_ptr_array_unref (ctx.selected);

  /* The sections as read; `items` keeps its place with an empty value. */
  sections = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  for (guint i = 0; i < km_yaml_node_get_length (top); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (top, i);

      if (g_strcmp0 (km_yaml_node_get_scalar (key, NULL), "items") == 0)
        km_yaml_mapping_append_node (sections, km_yaml_node_ref (key),
                                     km_yaml_node_new_scalar ("", KM_YAML_STYLE_PLAIN));
      else
        km_yaml_mapping_append_node (sections, km_yaml_node_ref (key),
                                     km_yaml_node_ref (km_yaml_mapping_get_value (top, i)));
    }
  km_project_set_sections (project, sections);

  /* References are checked once the whole tree is there. */
  ctx.root = root;
  km_item_foreach (root, check_item_references, &ctx);
  check_references (&ctx, root, top, 0);
  apply_view_lists (project, sections, &ctx.max_id);
  choose_current_body (project, sections);

  g_object_set_data_full (G_OBJECT (project), MAX_ID_KEY, g_memdup2 (&ctx.max_id, sizeof ctx.max_id),
                          g_free);
  g_object_set_data_full (G_OBJECT (project), SHARE_DIR_KEY, g_strdup (share_dir), g_free);
  g_object_set_data_full (G_OBJECT (project), SHARE_GIVEN_KEY,
                          found_share == NULL ? g_strdup (share_dir) : NULL, g_free);
  g_object_set_data_full (G_OBJECT (project), LOAD_DIR_KEY,
                          g_canonicalize_filename (ctx.io.dir, NULL), g_free);
  g_hash_table_unref (ctx.ids);
  if (ctx.n_used != ctx.n_tables)
    {
      *retry = TRUE;
      if (ctx.table_error != NULL)
        g_propagate_error (table_error, g_steal_pointer (&ctx.table_error));
      return NULL;
    }
  g_clear_error (&ctx.table_error);
  km_project_set_clean (project);
  return g_steal_pointer (&project);
}

static KmProject *
load_project (const char  *path,
              GBytes      *contents,
              const char  *share_dir,
              guint        depth,
              GPtrArray   *open_files,
              guint       *n_sub_projects,
              GPtrArray   *messages,
              GError     **error)
{
  g_autoptr(GBytes) owned = NULL;
  g_autoptr(GError) table_error = NULL;
  KmProject *project;
  guint n_sub = *n_sub_projects;
  guint n_messages = messages != NULL ? messages->len : 0;
  gboolean retry = FALSE;

  if (contents == NULL)
    {
      /* A sub-project is a file read as a whole, its errors at FILE:1:1 as a model's. */
      owned = depth > 0 ? km_format_read_whole_file (path, KM_FORMAT_MAX_FILE_SIZE, error)
                        : km_format_read_file (path, KM_FORMAT_MAX_FILE_SIZE, error);
      if (owned == NULL)
        return NULL;
      contents = owned;
    }
  project = load_project_once (path, contents, share_dir, depth, open_files, n_sub_projects,
                               messages, TRUE, &retry, &table_error, error);
  if (project == NULL && retry)
    {
      g_autoptr(GError) local_error = NULL;

      /* What the first reading did is undone: its messages, its sub-projects' count. */
      *n_sub_projects = n_sub;
      if (messages != NULL)
        g_ptr_array_set_size (messages, n_messages);
      project = load_project_once (path, contents, share_dir, depth, open_files,
                                   n_sub_projects, messages, FALSE, &retry, NULL, &local_error);
      /* A long animation with a bad frame is over the node limit as a tree: its frame's
       * error says more. */
      if (project == NULL && table_error != NULL &&
          g_error_matches (local_error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT))
        g_propagate_error (error, g_steal_pointer (&table_error));
      else if (project == NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
    }
  /* A sub-project: what its file held, for the check before a save writes over it. */
  if (project != NULL && depth > 0)
    {
      gsize length;
      const char *data = g_bytes_get_data (contents, &length);

      g_object_set_data_full (G_OBJECT (project), SUB_FILE_KEY, text_digest (data, length),
                              g_free);
    }
  return project;
}

/* An installed Choreonoid's share folder (PREFIX/share/choreonoid-X.Y, holding model/) in
 * the system data folders ($XDG_DATA_DIRS: /usr/local/share, /usr/share), in their order,
 * the newest version in each first; NULL when there is none. */
static char *
installed_share_dir (void)
{
  const char * const *dirs = g_get_system_data_dirs ();

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autoptr(GDir) dir = g_dir_open (dirs[i], 0, NULL);
      g_autofree char *best = NULL;
      g_autofree char *best_key = NULL;
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *model = NULL;
          g_autofree char *key = NULL;

          if (!g_str_has_prefix (name, "choreonoid-"))
            continue;
          model = g_build_filename (dirs[i], name, "model", NULL);
          if (!g_file_test (model, G_FILE_TEST_IS_DIR))
            continue;
          /* Natural order: choreonoid-2.10 after choreonoid-2.9. */
          key = g_utf8_collate_key_for_filename (name, -1);
          if (best_key == NULL || strcmp (key, best_key) > 0)
            {
              g_free (best);
              g_free (best_key);
              best = g_build_filename (dirs[i], name, NULL);
              best_key = g_steal_pointer (&key);
            }
        }
      if (best != NULL)
        return g_steal_pointer (&best);
    }
  return NULL;
}

void
km_cnoid_set_item_text (KmItem *item,
                        GBytes *text)
{
  g_return_if_fail (KM_IS_ITEM (item));

  g_object_set_data (G_OBJECT (item), TEXT_KEY, text);
}

GBytes *
km_cnoid_get_item_text (KmItem *item)
{
  g_return_val_if_fail (KM_IS_ITEM (item), NULL);

  return g_object_get_data (G_OBJECT (item), TEXT_KEY);
}

char *
km_cnoid_reference_dir (KmProject *project)
{
  const char *load_dir;
  const char *file;

  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);

  load_dir = g_object_get_data (G_OBJECT (project), LOAD_DIR_KEY);
  if (load_dir != NULL)
    return g_strdup (load_dir);
  file = km_project_get_file (project);
  return file != NULL ? g_path_get_dirname (file) : NULL;
}

char *
km_cnoid_find_share_dir (const char *project_path)
{
  g_autofree char *dir = NULL;
  const char *env;

  g_return_val_if_fail (project_path != NULL, NULL);

  env = g_getenv ("KINEMA_CHOREONOID_SHARE");
  if (env != NULL && *env != '\0')
    return g_canonicalize_filename (env, NULL);

  dir = g_path_get_dirname (project_path);
  {
    g_autofree char *canonical = g_canonicalize_filename (dir, NULL);
    char *p = canonical;

    /* The innermost ".../share/project" folder at or above the project's folder. */
    for (;;)
      {
        g_autofree char *base = g_path_get_basename (p);
        g_autofree char *parent = g_path_get_dirname (p);
        g_autofree char *parent_base = g_path_get_basename (parent);

        if (strcmp (base, "project") == 0 && strcmp (parent_base, "share") == 0)
          return g_steal_pointer (&parent);
        if (strcmp (parent, p) == 0)
          return installed_share_dir ();
        p[strlen (parent)] = '\0';
        if (strcmp (parent, "/") == 0)
          p[1] = '\0';
      }
  }
}

KmProject *
km_cnoid_load_full (const char  *path,
                    GBytes      *contents,
                    const char  *share_dir,
                    GError     **error)
{
  g_autoptr(GPtrArray) open_files = NULL;
  g_autofree char *share = NULL;
  guint n_sub_projects = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* A relative share folder (--share-dir=../share) is relative to the working directory,
   * not to the project's folder, where ${SHARE}/… paths would otherwise be resolved. */
  if (share_dir != NULL && *share_dir != '\0')
    share = g_canonicalize_filename (share_dir, NULL);
  open_files = g_ptr_array_new ();
  return load_project (path, contents, share, 0, open_files, &n_sub_projects, NULL,
                       error);
}

KmProject *
km_cnoid_load (const char  *path,
               GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  return km_cnoid_load_full (path, NULL, NULL, error);
}

/* ---------------------------------------------------------------------------------------- */
/* Writing */

typedef struct
{
  KmItemIo    io;
  GHashTable *ids;      /* KmItem → gint64 id (boxed), the ids being written */
  gint64      next_id;
  /* Set when saving into another folder than the project was loaded from: relative file
   * references are rewritten so that they still point at the same files. */
  const char *load_dir;
  /* ${SHARE} as the project was read (io.share_dir is what a reader of the saved file
   * will take: the one given, else the one found from the new place). */
  const char *load_share_dir;
  GHashTable *selected; /* the project's selected items */
  /* Writing a sub-project's file: its root, whose items are @sub_item's children, which
   * are written with the ids of that file (SUB_ID_KEY). NULL otherwise. */
  KmItem     *sub_root;
  KmItem     *sub_item;
  /* Every file reference rewritten is written absolute (an autosave's copy of a
   * sub-project, read back from a folder that goes once it is recovered). */
  gboolean    absolute_references;
  /* The references read through ${SHARE} written absolute (km_cnoid_build_tree_full). */
  guint       n_share_dropped;
  /* (nullable) The save's warnings (km_cnoid_build_tree_warned): a message for each
   * reference written absolute because a relative path would climb out of $HOME. */
  GPtrArray  *warnings;
} SaveContext;

/*
 * File references: the file-naming keys at the top of an item's data.
 *
 * Items keep each reference as it was read: ${VAR}/…, relative to the folder the project
 * was loaded from, or absolute. Saved into that folder, a reference read from the file is
 * written back unchanged (an unmodified load → save stays byte-identical). Saved into
 * another folder (Save As, `kinema-cli convert`), every reference, and wherever it is
 * saved a new absolute one (not read from the file), is written as the inverse of
 * km_item_io_expand_path, the first of these that resolves back to the same file:
 *
 *  1. ${VAR}/… with the variable the reference was read with, while the file is under it;
 *  2. relative, when the file is inside the project's folder (as Choreonoid does);
 *  3. ${SHARE}/…, when the file is under the share folder (as Choreonoid writes its own
 *     models: "${SHARE}/model/SR1/SR1.body", the spec's example);
 *  4. relative with "../", when the path does not climb out of $HOME: the file and the
 *     project's folder are both inside $HOME (however far up, $HOME itself included, their
 *     common folder is), or both outside it, with a common ancestor worth moving as a
 *     whole: two or more levels below the root ("/tmp" or "/home" alone is not one). A
 *     path that climbs out of the home folder, from a project inside it to a file outside
 *     it or back, breaks when the project moves to another computer or user; such a file
 *     gets the next rule that leads to it (${HOME}/… for a file inside $HOME), and when
 *     that is an absolute path, the save says so (km_cnoid_build_tree_warned). The spec
 *     lets a path be relative to the project file, and Choreonoid resolves it against the
 *     project's folder, where "../" climbs; as that climb is a physical one (Kinema's
 *     reader climbs lexically), the path is also checked on the file system, for a folder
 *     reached through a symbolic link;
 *  5. ${PROGRAM_TOP}/…, when the file is under Choreonoid's installation (known only for a
 *     share folder shaped like one, see km_item_io_expand_path) and that installation is
 *     two or more levels below the root, as in rule 4: a share folder at /tmp/share makes
 *     /tmp the program top, and every file in /tmp would be "Choreonoid's";
 *  6. ${HOME}/… (Choreonoid);
 *  7. absolute.
 *
 * ${PROGRAM_TOP} comes after "../": it is the installation's prefix, a broad folder (/usr,
 * a build tree, the folder above a share/ given with --share-dir) that may also hold the
 * user's own projects and models; the files of a project's own folder tree must move with
 * the project, not be pinned to wherever Choreonoid is installed. ${SHARE} stays before
 * "../": what is under the share folder is Choreonoid's, and installed elsewhere.
 *
 * Each candidate is expanded as the reader expands it, against the new folder, and used
 * only when that gives the same absolute file: no path is written that does not lead
 * back to the file it named. That reader's ${SHARE} is the one the load was given
 * (--share-dir), else the one the new place finds (km_cnoid_find_share_dir: the
 * environment and preference, then a share/ above a share/project/ holding the file):
 * ${SHARE} found from the old place only (a project moved out of share/project/) is not
 * kept, and its files get the next rule that leads to them; nor is ${PROGRAM_TOP}, the
 * folder above that share folder. Those written absolute are counted for the save's
 * warning (km_cnoid_share_dropped_message), ${SHARE} and ${PROGRAM_TOP} ones alike: both
 * name this computer's folders, found from the project's place, not given.
 *
 * A Windows path (C:\Users\…, D:/…, \\server\share\…), from a project a Windows user
 * saved, is absolute, though not here: written back as it is, wherever the project is
 * saved (km_item_io_expand_path refuses it).
 */
static const char * const file_ref_keys[] = {
  "file", "filename", "modelFile", "default_material_table_file", "materialTableFile", NULL
};

/* What follows @dir's own components in @path ("" for @dir itself), or NULL when @path is
 * not inside it. Both canonical. */
static const char *
path_inside (const char *path,
             const char *dir)
{
  gsize n = strlen (dir);

  while (n > 0 && dir[n - 1] == '/')
    n--;
  if (strncmp (path, dir, n) != 0)
    return NULL;
  if (path[n] == '\0')
    return path + n;
  if (path[n] == '/')
    return path + n + 1;
  return NULL;
}

/* The value of the path variable @name for the save (canonical), or NULL when it has none
 * or it is the root folder (which would make every file "under" it). */
static char *
variable_value (SaveContext *ctx,
                const char  *name)
{
  g_autofree char *reference = g_strdup_printf ("${%s}", name);
  g_autofree char *value = km_item_io_expand_path (&ctx->io, reference, NULL);

  if (value == NULL || strcmp (value, "/") == 0)
    return NULL;
  return g_steal_pointer (&value);
}

/* @candidate when the reader, reading the saved file, makes @absolute of it; else NULL. */
static char *
check_candidate (SaveContext *ctx,
                 char        *candidate,
                 const char  *absolute)
{
  g_autofree char *expanded = km_item_io_expand_path (&ctx->io, candidate, NULL);

  if (expanded == NULL || strcmp (expanded, absolute) != 0)
    {
      g_free (candidate);
      return NULL;
    }
  return candidate;
}

static char *
under_variable (SaveContext *ctx,
                const char  *name,
                const char  *absolute)
{
  g_autofree char *value = variable_value (ctx, name);
  const char *rest = value != NULL ? path_inside (absolute, value) : NULL;

  if (rest == NULL || *rest == '\0')
    return NULL;
  return check_candidate (ctx, g_strdup_printf ("${%s}/%s", name, rest), absolute);
}

/* Rule 5: ${PROGRAM_TOP}/… for @absolute, or NULL. */
static char *
under_program_top (SaveContext *ctx,
                   const char  *absolute)
{
  g_autofree char *top = variable_value (ctx, "PROGRAM_TOP");
  guint depth = 0;

  if (top == NULL)
    return NULL;
  for (const char *p = top; *p != '\0'; p++)
    if (*p == '/' && p[1] != '\0' && p[1] != '/')
      depth++;
  if (depth < 2)
    return NULL;
  return under_variable (ctx, "PROGRAM_TOP", absolute);
}

/* Rule 4: "../…" from the canonical folder @dir to @absolute, or NULL; *@out_of_home set
 * when the path is refused because it would climb out of $HOME (one of the two is inside
 * it, the other not). */
static char *
climbing_path (SaveContext *ctx,
               const char  *dir,
               const char  *absolute,
               gboolean    *out_of_home)
{
  g_autofree char *home = variable_value (ctx, "HOME");
  gboolean dir_at_home = home != NULL && path_inside (dir, home) != NULL;
  gboolean file_at_home = home != NULL && path_inside (absolute, home) != NULL;
  char *path;

  *out_of_home = FALSE;
  if (dir_at_home != file_at_home)
    {
      *out_of_home = TRUE;
      return NULL;
    }
  /* Inside $HOME, the common folder is $HOME or below it, whatever its depth. */
  path = km_path_climbing (dir, absolute, dir_at_home ? 1 : 2, NULL);
  if (path == NULL)
    return NULL;
  return check_candidate (ctx, path, absolute);
}

/* The reference to write for the file @absolute (canonical); @variable: the variable the
 * reference was read with, or NULL. *@out_of_home: see climbing_path(). */
static char *
portable_path (SaveContext *ctx,
               const char  *absolute,
               const char  *variable,
               gboolean    *out_of_home)
{
  g_autofree char *dir = g_canonicalize_filename (ctx->io.dir, NULL);
  const char *rest;
  char *path = NULL;

  *out_of_home = FALSE;
  if (ctx->absolute_references)
    return g_strdup (absolute);
  if (variable != NULL && (path = under_variable (ctx, variable, absolute)) != NULL)
    return path;
  if ((rest = path_inside (absolute, dir)) != NULL && *rest != '\0' &&
      (path = check_candidate (ctx, g_strdup (rest), absolute)) != NULL)
    return path;
  if ((path = under_variable (ctx, "SHARE", absolute)) != NULL ||
      (path = climbing_path (ctx, dir, absolute, out_of_home)) != NULL ||
      (path = under_program_top (ctx, absolute)) != NULL ||
      (path = under_variable (ctx, "HOME", absolute)) != NULL)
    return path;
  return g_strdup (absolute);
}

/* The variable @value starts with ("${NAME}…"), or NULL. */
static char *
leading_variable (const char *value)
{
  const char *end;

  if (!g_str_has_prefix (value, "${") || (end = strchr (value + 2, '}')) == NULL)
    return NULL;
  return g_strndup (value + 2, end - value - 2);
}

/* TRUE when @value is what @orig_data held under one of the file keys when it was read. */
static gboolean
reference_as_read (const KmYamlNode *orig_data,
                   const char       *value)
{
  if (orig_data == NULL || km_yaml_node_get_kind (orig_data) != KM_YAML_MAPPING)
    return FALSE;
  for (guint k = 0; file_ref_keys[k] != NULL; k++)
    if (scalar_is (km_yaml_mapping_lookup (orig_data, file_ref_keys[k]), value))
      return TRUE;
  return FALSE;
}

/* The warning for the file @absolute, written as an absolute path because a relative one
 * would climb out of the home folder (rule 4). */
static char *
out_of_home_message (SaveContext *ctx,
                     const char  *absolute)
{
  g_autofree char *home = variable_value (ctx, "HOME");

  return g_strdup_printf (/* Translators: the first %s is a file's path, the second the
                           * user's home folder. */
                          _("The path of “%s” was written as absolute because a relative "
                            "path would climb out of the home folder (%s), and would no "
                            "longer lead to the file once the project is moved."),
                          absolute, home != NULL ? home : "~");
}

/* @data (full transfer) with its file references written for the new file (see above). */
static KmYamlNode *
write_file_references (SaveContext      *ctx,
                       const KmYamlNode *orig_data,
                       KmYamlNode       *data)
{
  KmYamlNode *copy = NULL;

  if (data == NULL || km_yaml_node_get_kind (data) != KM_YAML_MAPPING)
    return data;

  for (guint k = 0; file_ref_keys[k] != NULL; k++)
    {
      KmYamlNode *v = km_yaml_mapping_lookup (copy != NULL ? copy : data, file_ref_keys[k]);
      const char *value = v != NULL && km_yaml_node_get_kind (v) == KM_YAML_SCALAR ?
                          km_yaml_node_get_scalar (v, NULL) : NULL;
      g_autofree char *variable = NULL;
      g_autofree char *absolute = NULL;
      g_autofree char *written = NULL;
      gboolean out_of_home = FALSE;

      if (value == NULL || *value == '\0')
        continue;
      variable = leading_variable (value);
      if (ctx->load_dir == NULL &&
          (variable != NULL || !g_path_is_absolute (value) || reference_as_read (orig_data, value)))
        continue;   /* in place: as read, and new relative or ${VAR} ones as they are */

      if (variable != NULL || !g_path_is_absolute (value))
        {
          /* As the reader expanded it, in the folder it was read from. */
          KmItemIo read_io = ctx->io;

          read_io.dir = ctx->load_dir;
          read_io.share_dir = ctx->load_share_dir;
          absolute = km_item_io_expand_path (&read_io, value, NULL);
          if (absolute == NULL)
            continue;   /* an unknown or unset variable, a Windows path: kept as it is */
        }
      else
        absolute = g_canonicalize_filename (value, NULL);
      written = portable_path (ctx, absolute, variable, &out_of_home);
      /* Absolute ones only: a relative path or ${HOME}/… still leads to the file when
       * the folders move together. ${PROGRAM_TOP} is the folder above the share folder,
       * and is lost with it. */
      if ((g_strcmp0 (variable, "SHARE") == 0 || g_strcmp0 (variable, "PROGRAM_TOP") == 0) &&
          g_path_is_absolute (written))
        ctx->n_share_dropped++;
      else if (out_of_home && g_path_is_absolute (written) && ctx->warnings != NULL)
        g_ptr_array_add (ctx->warnings, out_of_home_message (ctx, written));
      if (strcmp (written, value) == 0)
        continue;
      if (copy == NULL)
        copy = km_yaml_node_copy (data);
      km_yaml_mapping_set (copy, file_ref_keys[k], km_yaml_node_new_string (written));
    }
  if (copy == NULL)
    return data;
  km_yaml_node_unref (data);
  return copy;
}

static gboolean
is_written (KmItem *item)
{
  return g_object_get_data (G_OBJECT (item), FROM_SUB_KEY) == NULL;
}

/* Whether @item goes into the file being written: in a sub-project's file, all it holds. */
static gboolean
is_written_in (SaveContext *ctx,
               KmItem      *item)
{
  return ctx->sub_root != NULL || is_written (item);
}

/* The id @item has in the file being written (-1: none yet). */
static gint64
file_id (SaveContext *ctx,
         KmItem      *item)
{
  gint64 *sub_id = g_object_get_data (G_OBJECT (item), SUB_ID_KEY);

  if (ctx->sub_root != NULL && sub_id != NULL)
    return *sub_id;
  return km_item_get_id (item);
}

/* The item whose children are written below @item. */
static KmItem *
children_holder (SaveContext *ctx,
                 KmItem      *item)
{
  return item == ctx->sub_root ? ctx->sub_item : item;
}

static void
collect_ids (SaveContext *ctx,
             KmItem      *item,
             GHashTable  *used,
             GPtrArray   *unassigned)
{
  gint64 id = file_id (ctx, item);
  KmItem *holder = children_holder (ctx, item);

  if (id >= 0 && !g_hash_table_contains (used, &id))
    {
      gint64 *key = g_memdup2 (&id, sizeof id);

      g_hash_table_add (used, key);
      g_hash_table_insert (ctx->ids, g_object_ref (item), g_memdup2 (&id, sizeof id));
      ctx->next_id = MAX (ctx->next_id, id + 1);
    }
  else
    g_ptr_array_add (unassigned, item);

  if (KM_IS_SUB_PROJECT_ITEM (item))
    return;
  for (guint i = 0; i < km_item_get_n_children (holder); i++)
    collect_ids (ctx, km_item_get_child (holder, i), used, unassigned);
}

static gint64
verbatim_max_id (const KmYamlNode *node,
                 guint             depth)
{
  KmYamlNode *children;
  gint64 max = -1;
  gint64 id;

  if (node == NULL || km_yaml_node_get_kind (node) != KM_YAML_MAPPING || depth > 256)
    return -1;
  if (km_yaml_mapping_lookup (node, "id") != NULL &&
      km_yaml_expect_int (km_yaml_mapping_lookup (node, "id"), &id, NULL))
    max = id;
  children = km_yaml_mapping_lookup (node, "children");
  if (children != NULL && km_yaml_node_get_kind (children) == KM_YAML_SEQUENCE)
    for (guint i = 0; i < km_yaml_node_get_length (children); i++)
      max = MAX (max, verbatim_max_id (km_yaml_sequence_get (children, i), depth + 1));
  return max;
}

static void
note_kept_ids (gpointer item,
               gpointer user_data)
{
  SaveContext *ctx = user_data;
  KmYamlNode *kept = NULL;

  if (KM_IS_UNKNOWN_ITEM (item) && km_unknown_item_get_verbatim_children (item))
    kept = km_yaml_mapping_lookup (km_unknown_item_get_node (item), "children");
  else if (KM_IS_SUB_PROJECT_ITEM (item))
    kept = g_object_get_data (item, SUB_CHILDREN_KEY);
  for (guint i = 0; kept != NULL && km_yaml_node_get_kind (kept) == KM_YAML_SEQUENCE &&
       i < km_yaml_node_get_length (kept); i++)
    ctx->next_id = MAX (ctx->next_id, verbatim_max_id (km_yaml_sequence_get (kept, i), 0) + 1);
}

static KmYamlNode *
bool_value (const KmYamlNode *orig,
            gboolean          value)
{
  gboolean b;

  if (orig != NULL && km_yaml_scalar_to_bool (orig, &b) && b == value)
    return km_yaml_node_ref ((KmYamlNode *) orig);
  return value ? km_yaml_node_new_bool (TRUE) : NULL;
}

static KmYamlNode *write_item (SaveContext *ctx,
                               KmItem      *item);

/* The item's mapping: the keys of @orig in their order (the ones every item has take the
 * item's current values, the others are copied), then the missing ones in Choreonoid's
 * order. */
static KmYamlNode *
merge_item (KmYamlNode *orig,
            KmYamlNode *values[N_KEYS])
{
  KmYamlNode *out = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) km_yaml_node_unref);
  g_autoptr(GPtrArray) vals = g_ptr_array_new_with_free_func ((GDestroyNotify) km_yaml_node_unref);
  g_autoptr(GArray) index = g_array_new (FALSE, FALSE, sizeof (int));
  gboolean done[N_KEYS] = { FALSE, };

  for (guint i = 0; orig != NULL && km_yaml_node_get_kind (orig) == KM_YAML_MAPPING &&
       i < km_yaml_node_get_length (orig); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (orig, i);
      int k = key_index (km_yaml_node_get_scalar (key, NULL));

      if (k >= 0 && done[k])
        continue;
      if (k >= 0)
        {
          done[k] = TRUE;
          if (values[k] == NULL)
            continue;
          g_ptr_array_add (vals, g_steal_pointer (&values[k]));
        }
      else
        g_ptr_array_add (vals, km_yaml_node_ref (km_yaml_mapping_get_value (orig, i)));
      g_ptr_array_add (keys, km_yaml_node_ref (key));
      g_array_append_val (index, k);
    }
  for (int k = 0; k < N_KEYS; k++)
    {
      guint at = keys->len;

      if (done[k] || values[k] == NULL)
        continue;
      for (guint j = 0; j < index->len; j++)
        if (g_array_index (index, int, j) > k)
          {
            at = j;
            break;
          }
      g_ptr_array_insert (keys, at, km_yaml_node_new_scalar (key_names[k], KM_YAML_STYLE_ANY));
      g_ptr_array_insert (vals, at, g_steal_pointer (&values[k]));
      g_array_insert_val (index, at, k);
    }
  for (guint i = 0; i < keys->len; i++)
    km_yaml_mapping_append_node (out, km_yaml_node_ref (g_ptr_array_index (keys, i)),
                                 km_yaml_node_ref (g_ptr_array_index (vals, i)));
  return out;
}

/* Is @v a flow list read from a file (and so written as it was laid out there)? */
static gboolean
is_read_flow_list (const KmYamlNode *v)
{
  return km_yaml_node_get_kind (v) == KM_YAML_SEQUENCE
         && km_yaml_node_get_style (v) == KM_YAML_STYLE_FLOW && km_yaml_node_get_tag (v) == NULL
         && km_yaml_node_get_pos (v).line > 0;
}

/* @data (full transfer) of an item Kinema writes, with its flow lists read made anew (the
 * same items in lists of no source layout): the numbers of such an item (its pose, and the
 * lists Choreonoid writes beside it, "initialJointPositions") are written in Kinema's
 * layout (ten to a line), edited or not. Only what is kept of items and views Kinema does
 * not write keeps its rows. */
static KmYamlNode *
own_lists_relaid (KmYamlNode *data)
{
  KmYamlNode *out;
  gboolean read = FALSE;

  if (data == NULL || km_yaml_node_get_kind (data) != KM_YAML_MAPPING
      || km_yaml_node_get_tag (data) != NULL)
    return data;
  for (guint i = 0; i < km_yaml_node_get_length (data) && !read; i++)
    read = is_read_flow_list (km_yaml_mapping_get_value (data, i));
  if (!read)
    return data;
  out = km_yaml_node_new_mapping (km_yaml_node_get_style (data));
  for (guint i = 0; i < km_yaml_node_get_length (data); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (data, i);
      KmYamlNode *v = km_yaml_mapping_get_value (data, i);

      if (is_read_flow_list (v))
        {
          KmYamlNode *list = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

          for (guint j = 0; j < km_yaml_node_get_length (v); j++)
            km_yaml_sequence_append (list, km_yaml_node_ref (km_yaml_sequence_get (v, j)));
          km_yaml_mapping_append_node (out, km_yaml_node_ref (key), list);
        }
      else
        km_yaml_mapping_append_node (out, km_yaml_node_ref (key), km_yaml_node_ref (v));
    }
  km_yaml_node_unref (data);
  return out;
}

static KmYamlNode *
write_item (SaveContext *ctx,
            KmItem      *item)
{
  KmYamlNode *values[N_KEYS] = { NULL, };
  KmYamlNode *orig = g_object_get_data (G_OBJECT (item), NODE_KEY);
  gint64 *id = g_hash_table_lookup (ctx->ids, item);
  gboolean verbatim = FALSE;
  KmYamlNode *v;
  KmYamlNode *result;

  if (KM_IS_UNKNOWN_ITEM (item))
    {
      orig = km_unknown_item_get_node (KM_UNKNOWN_ITEM (item));
      verbatim = km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (item));
      if (km_yaml_node_get_kind (orig) != KM_YAML_MAPPING)
        return km_yaml_node_ref (orig);
    }

  v = km_yaml_mapping_lookup (orig, "id");
  if (verbatim && v != NULL && file_id (ctx, item) < 0)
    values[KEY_ID] = km_yaml_node_ref (v);    /* a duplicate kept as it was */
  else
    {
      gint64 old;

      values[KEY_ID] = v != NULL && km_yaml_expect_int (v, &old, NULL) && old == *id ?
                       km_yaml_node_ref (v) : km_yaml_node_new_int (*id);
    }
  v = km_yaml_mapping_lookup (orig, "name");
  /* An item read without a name (a root item often is) gets none written, not "". */
  if (v == NULL && orig != NULL &&
      (km_item_get_name (item) == NULL || *km_item_get_name (item) == '\0'))
    values[KEY_NAME] = NULL;
  else
    values[KEY_NAME] = scalar_is (v, km_item_get_name (item)) ?
                       km_yaml_node_ref (v) : km_yaml_node_new_string (km_item_get_name (item));
  /* An item kept unread (DESIGN.md: verbatim) gets no plugin or class key it lacked. */
  v = km_yaml_mapping_lookup (orig, "plugin");
  if (v != NULL || !KM_IS_UNKNOWN_ITEM (item))
    values[KEY_PLUGIN] = scalar_is (v, km_item_get_plugin_name (item)) ? km_yaml_node_ref (v) :
                         km_yaml_node_new_scalar (km_item_get_plugin_name (item),
                                                  KM_YAML_STYLE_ANY);
  v = km_yaml_mapping_lookup (orig, "class");
  if (v != NULL || !KM_IS_UNKNOWN_ITEM (item))
    values[KEY_CLASS] = scalar_is (v, km_item_get_class_name (item)) ? km_yaml_node_ref (v) :
                        km_yaml_node_new_scalar (km_item_get_class_name (item),
                                                 KM_YAML_STYLE_ANY);
  values[KEY_SELECTED] = bool_value (km_yaml_mapping_lookup_any (orig, selected_keys),
                                     g_hash_table_contains (ctx->selected, item));
  values[KEY_CHECKED] = bool_value (km_yaml_mapping_lookup_any (orig, checked_keys),
                                    km_item_get_checked (item));
  /* Still checked (selected) by the item tree view's list, which is written back. */
  if (g_object_get_data (G_OBJECT (item), VIEW_CHECKED_KEY) != NULL &&
      km_yaml_mapping_lookup_any (orig, checked_keys) == NULL)
    g_clear_pointer (&values[KEY_CHECKED], km_yaml_node_unref);
  if (g_object_get_data (G_OBJECT (item), VIEW_SELECTED_KEY) != NULL &&
      km_yaml_mapping_lookup_any (orig, selected_keys) == NULL)
    g_clear_pointer (&values[KEY_SELECTED], km_yaml_node_unref);
  values[KEY_BUILTIN] = bool_value (km_yaml_mapping_lookup_any (orig, builtin_keys),
                                    km_item_get_builtin (item));

  if (KM_IS_UNKNOWN_ITEM (item))
    {
      v = km_yaml_mapping_lookup (orig, "data");
      values[KEY_DATA] = write_file_references (ctx, v, v != NULL ? km_yaml_node_ref (v) : NULL);
    }
  else
    {
      /* The tree is only written: an animation's frames are built where it is. */
      KmYamlNode *data = KM_IS_IK_ANIMATION_ITEM (item) ?
                         km_ik_animation_item_store_for_writing (KM_IK_ANIMATION_ITEM (item),
                                                                 &ctx->io) :
                         km_item_store (item, &ctx->io);

      data = write_file_references (ctx, km_yaml_mapping_lookup (orig, "data"), data);
      values[KEY_DATA] = own_lists_relaid (data);
      if (values[KEY_DATA] != NULL && km_yaml_node_get_length (values[KEY_DATA]) == 0 &&
          km_yaml_node_get_kind (values[KEY_DATA]) == KM_YAML_MAPPING &&
          km_yaml_mapping_lookup (orig, "data") == NULL)
        g_clear_pointer (&values[KEY_DATA], km_yaml_node_unref);
    }

  v = km_yaml_mapping_lookup (orig, "children");
  if (verbatim)
    values[KEY_CHILDREN] = v != NULL ? km_yaml_node_ref (v) : NULL;
  else if (KM_IS_SUB_PROJECT_ITEM (item))
    {
      KmYamlNode *kept = g_object_get_data (G_OBJECT (item), SUB_CHILDREN_KEY);

      values[KEY_CHILDREN] = kept != NULL ? km_yaml_node_ref (kept) : NULL;
    }
  else
    {
      KmYamlNode *children = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
      KmItem *holder = children_holder (ctx, item);

      for (guint i = 0; i < km_item_get_n_children (holder); i++)
        if (is_written_in (ctx, km_item_get_child (holder, i)))
          km_yaml_sequence_append (children, write_item (ctx, km_item_get_child (holder, i)));
      if (km_yaml_node_get_length (children) > 0)
        values[KEY_CHILDREN] = children;
      else
        {
          km_yaml_node_unref (children);
          values[KEY_CHILDREN] = v != NULL ? km_yaml_node_ref (v) : NULL;
          if (v != NULL && km_yaml_node_get_kind (v) == KM_YAML_SEQUENCE &&
              km_yaml_node_get_length (v) > 0)
            g_clear_pointer (&values[KEY_CHILDREN], km_yaml_node_unref);
        }
    }

  result = merge_item (orig, values);
  for (int k = 0; k < N_KEYS; k++)
    g_clear_pointer (&values[k], km_yaml_node_unref);
  return result;
}

static gboolean
is_layout_key (const char *key)
{
  return key != NULL && g_strv_contains (layout_keys, key);
}

/* The items written by the ids they are written with (a sub-project's file's). */
static GHashTable *
written_by_id (SaveContext *ctx)
{
  GHashTable *table = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer item, id;

  g_hash_table_iter_init (&iter, ctx->ids);
  while (g_hash_table_iter_next (&iter, &item, &id))
    if (!g_hash_table_contains (table, id))
      g_hash_table_insert (table, g_memdup2 (id, sizeof (gint64)), item);
  return table;
}

/* @views with the item tree view's `checked` and `selected` lists (Choreonoid 1.x) left
 * without the items they marked that are unchecked (no longer selected) now; the same node
 * when nothing changed. (Items checked or selected since get `is_checked` / `is_selected`.) */
static KmYamlNode *
write_views (SaveContext *ctx,
             KmItem      *root,
             KmYamlNode  *views)
{
  static const char * const keys[] = { "checked", "selected" };
  g_autoptr(GHashTable) by_id = NULL;
  g_autoptr(KmYamlNode) view = NULL;
  g_autoptr(KmYamlNode) state = NULL;
  guint index = 0;
  KmYamlNode *out;

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      guint at = 0;
      KmYamlNode *list = view_state_list (views, keys[k], &at);
      g_autoptr(KmYamlNode) kept = NULL;

      if (list == NULL)
        continue;
      if (by_id == NULL)
        by_id = ctx->sub_root != NULL ? written_by_id (ctx) : items_by_id (root);
      kept = km_yaml_node_new_sequence (km_yaml_node_get_style (list));
      for (guint i = 0; i < km_yaml_node_get_length (list); i++)
        {
          KmYamlNode *entry = km_yaml_sequence_get (list, i);
          KmItem *item = resolve_reference (NULL, by_id, entry);

          if (item != NULL && k == 0 &&
              g_object_get_data (G_OBJECT (item), VIEW_CHECKED_KEY) != NULL &&
              !km_item_get_checked (item))
            continue;
          if (item != NULL && k == 1 &&
              g_object_get_data (G_OBJECT (item), VIEW_SELECTED_KEY) != NULL &&
              !g_hash_table_contains (ctx->selected, item))
            continue;
          km_yaml_sequence_append (kept, km_yaml_node_ref (entry));
        }
      if (km_yaml_node_get_length (kept) == km_yaml_node_get_length (list))
        continue;
      if (state == NULL)
        {
          index = at;
          state = km_yaml_node_copy (item_tree_state (views, NULL));
        }
      km_yaml_mapping_set (state, keys[k], g_steal_pointer (&kept));
    }
  if (state == NULL)
    return km_yaml_node_ref (views);

  if (km_yaml_node_get_kind (views) == KM_YAML_MAPPING)
    {
      /* The older form: the state is the value under the view's name. */
      out = km_yaml_node_new_mapping (km_yaml_node_get_style (views));
      for (guint i = 0; i < km_yaml_node_get_length (views); i++)
        km_yaml_mapping_append_node (out, km_yaml_node_ref (km_yaml_mapping_get_key (views, i)),
                                     i == index ? g_steal_pointer (&state) :
                                     km_yaml_node_ref (km_yaml_mapping_get_value (views, i)));
      return out;
    }
  view = km_yaml_node_copy (km_yaml_sequence_get (views, index));
  km_yaml_mapping_set (view, "state", g_steal_pointer (&state));
  out = km_yaml_node_new_sequence (km_yaml_node_get_style (views));
  for (guint i = 0; i < km_yaml_node_get_length (views); i++)
    km_yaml_sequence_append (out, i == index ? km_yaml_node_ref (view) :
                                  km_yaml_node_ref (km_yaml_sequence_get (views, i)));
  return out;
}

/* @body (nullable: the project's Body section, as read) naming @current, by the id it is
 * written with, as Choreonoid's BodySelectionManager does. */
static KmYamlNode *
write_body_section (SaveContext *ctx,
                    KmYamlNode  *body,
                    KmItem      *current)
{
  /* (What is not a mapping, as `Body: ~`, is replaced by one.) */
  KmYamlNode *section = body != NULL && km_yaml_node_get_kind (body) == KM_YAML_MAPPING
                        ? km_yaml_node_copy (body)
                        : km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  KmYamlNode *read = km_yaml_mapping_lookup (section, "BodySelectionManager");
  KmYamlNode *manager = read != NULL && km_yaml_node_get_kind (read) == KM_YAML_MAPPING
                        ? km_yaml_node_copy (read)
                        : km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  const char *key = current_body_keys[0];
  const gint64 *id = g_hash_table_lookup (ctx->ids, current);

  for (guint i = 0; current_body_keys[i] != NULL; i++)
    if (km_yaml_mapping_lookup (manager, current_body_keys[i]) != NULL)
      key = current_body_keys[i];
  km_yaml_mapping_set (manager, key, km_yaml_node_new_int (id != NULL ? *id : 0));
  km_yaml_mapping_set (section, "BodySelectionManager", manager);
  return section;
}

/* The file's tree, and (out) the ids the items were given. @sub_item: @project is the
 * sub-project that item was read from, whose items are its children; else NULL.
 * @absolute_references: see SaveContext. */
static KmYamlNode *
build_tree_full (KmProject   *project,
                 KmItem      *sub_item,
                 const char  *path,
                 gboolean     absolute_references,
                 GHashTable **ids_out,
                 guint       *n_share_dropped,
                 GPtrArray   *warnings)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GPtrArray) unassigned = g_ptr_array_new ();
  g_autoptr(KmYamlNode) top = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  g_autofree char *dir = g_path_get_dirname (path);
  KmYamlNode *sections = km_project_get_sections (project);
  KmItem *root = km_project_get_root_item (project);
  gint64 *max_read = g_object_get_data (G_OBJECT (project), MAX_ID_KEY);
  gboolean items_written = FALSE;
  g_autofree char *found_share = NULL;
  KmItem *current = NULL;  /* a current body still to be written in a Body section */
  SaveContext ctx = { 0, };

  ctx.io.file = path;
  ctx.io.dir = dir;
  ctx.absolute_references = absolute_references;
  ctx.warnings = warnings;
  if (sub_item != NULL)
    {
      ctx.sub_root = root;
      ctx.sub_item = sub_item;
    }
  ctx.load_share_dir = g_object_get_data (G_OBJECT (project), SHARE_DIR_KEY);
  ctx.io.share_dir = g_object_get_data (G_OBJECT (project), SHARE_GIVEN_KEY);
  if (ctx.io.share_dir == NULL)
    ctx.io.share_dir = found_share = km_cnoid_find_share_dir (path);
  ctx.load_dir = g_object_get_data (G_OBJECT (project), LOAD_DIR_KEY);
  {
    g_autofree char *target_dir = g_canonicalize_filename (dir, NULL);

    if (g_strcmp0 (ctx.load_dir, target_dir) == 0)
      ctx.load_dir = NULL;
  }
  /* Items referenced: the table may outlive this call (km_cnoid_to_string_for_save). */
  ctx.ids = g_hash_table_new_full (NULL, NULL, g_object_unref, g_free);
  ctx.next_id = max_read != NULL ? *max_read + 1 : 0;
  ctx.selected = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < g_list_model_get_n_items (km_project_get_selection (project)); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (km_project_get_selection (project), i);

      g_hash_table_add (ctx.selected, item);
    }

  /* Ids: loaded items keep theirs; new items (and a second holder of an id) get ones
   * above every id in use or ever read. */
  km_item_foreach (root, note_kept_ids, &ctx);
  for (guint i = 0; sub_item != NULL && i < km_item_get_n_children (sub_item); i++)
    km_item_foreach (km_item_get_child (sub_item, i), note_kept_ids, &ctx);
  collect_ids (&ctx, root, used, unassigned);
  for (guint i = 0; i < unassigned->len; i++)
    {
      gint64 id = ctx.next_id++;

      g_hash_table_insert (ctx.ids, g_object_ref (g_ptr_array_index (unassigned, i)),
                           g_memdup2 (&id, sizeof id));
    }

  /* The body current now, where the file would open with another. */
  if (sub_item == NULL && km_project_get_current_body (project) != NULL
      && g_hash_table_contains (ctx.ids, km_project_get_current_body (project))
      && km_project_get_current_body (project) != named_current_body (root, sections))
    current = km_project_get_current_body (project);
  for (guint i = 0; sections != NULL && i < km_yaml_node_get_length (sections); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (sections, i);
      const char *name = km_yaml_node_get_scalar (key, NULL);

      if (g_strcmp0 (name, "Body") == 0 && current != NULL)
        {
          km_yaml_mapping_append_node (top, km_yaml_node_ref (key),
                                       write_body_section (&ctx,
                                                           km_yaml_mapping_get_value (sections, i),
                                                           current));
          current = NULL;
          continue;
        }
      if (g_strcmp0 (name, "items") == 0)
        {
          if (!items_written)
            km_yaml_mapping_append_node (top, km_yaml_node_ref (key), write_item (&ctx, root));
          items_written = TRUE;
          continue;
        }
      if (is_layout_key (name) && !km_project_get_save_layout (project))
        continue;
      if (g_strcmp0 (name, "views") == 0)
        {
          km_yaml_mapping_append_node (top, km_yaml_node_ref (key),
                                       write_views (&ctx, root,
                                                    km_yaml_mapping_get_value (sections, i)));
          continue;
        }
      km_yaml_mapping_append_node (top, km_yaml_node_ref (key),
                                   km_yaml_node_ref (km_yaml_mapping_get_value (sections, i)));
    }
  if (!items_written)
    {
      /* Sections set without an `items` place: the tree goes after optional_plugins. */
      g_autoptr(KmYamlNode) reordered = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
      guint n = km_yaml_node_get_length (top);
      guint at = scalar_is (n > 0 ? km_yaml_mapping_get_key (top, 0) : NULL,
                            "optional_plugins") ? 1 : 0;

      for (guint i = 0; i <= n; i++)
        {
          if (i == at)
            km_yaml_mapping_append (reordered, "items", write_item (&ctx, root));
          if (i < n)
            km_yaml_mapping_append_node (reordered,
                                         km_yaml_node_ref (km_yaml_mapping_get_key (top, i)),
                                         km_yaml_node_ref (km_yaml_mapping_get_value (top, i)));
        }
      g_clear_pointer (&top, km_yaml_node_unref);
      top = g_steal_pointer (&reordered);
    }
  /* No Body section to say it in: one of its own. */
  if (current != NULL)
    km_yaml_mapping_append (top, "Body", write_body_section (&ctx, NULL, current));

  g_hash_table_unref (ctx.selected);
  if (n_share_dropped != NULL)
    *n_share_dropped = ctx.n_share_dropped;
  if (ids_out != NULL)
    *ids_out = g_steal_pointer (&ctx.ids);
  else
    g_hash_table_unref (ctx.ids);
  return g_steal_pointer (&top);
}

static KmYamlNode *
build_tree (KmProject   *project,
            const char  *path,
            GHashTable **ids_out)
{
  return build_tree_full (project, NULL, path, FALSE, ids_out, NULL, NULL);
}

KmYamlNode *
km_cnoid_build_tree (KmProject   *project,
                     const char  *path,
                     GHashTable **ids)
{
  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  return build_tree (project, path, ids);
}

KmYamlNode *
km_cnoid_build_tree_full (KmProject   *project,
                          const char  *path,
                          GHashTable **ids,
                          guint       *n_share_dropped)
{
  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (n_share_dropped != NULL, NULL);

  return build_tree_full (project, NULL, path, FALSE, ids, n_share_dropped, NULL);
}

KmYamlNode *
km_cnoid_build_tree_warned (KmProject   *project,
                            const char  *path,
                            GHashTable **ids,
                            GPtrArray  **warnings)
{
  g_autoptr(GPtrArray) said = g_ptr_array_new_with_free_func (g_free);
  KmYamlNode *tree;
  guint n_share_dropped = 0;

  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (warnings != NULL, NULL);

  tree = build_tree_full (project, NULL, path, FALSE, ids, &n_share_dropped, said);
  if (n_share_dropped > 0)
    g_ptr_array_insert (said, 0, km_cnoid_share_dropped_message (n_share_dropped));
  *warnings = g_steal_pointer (&said);
  return tree;
}

/* A project saved elsewhere no longer finds the share folder its ${SHARE} references (and
 * ${PROGRAM_TOP} ones, the folder above it) were read through (found from its old place,
 * share/project/): they were written as the files' paths on this computer, which the user
 * should know before moving the project on. */
char *
km_cnoid_share_dropped_message (guint n_share_dropped)
{
  return g_strdup_printf (/* Translators: a count. ${SHARE}, ${PROGRAM_TOP} and
                           * share/project/ are not to be translated. */
                          g_dngettext (GETTEXT_PACKAGE,
                                       "%u file reference was written as an absolute path, "
                                       "not ${SHARE}/… or ${PROGRAM_TOP}/…: the share folder "
                                       "was found from the project's old place "
                                       "(share/project/), and the new place has none.",
                                       "%u file references were written as absolute paths, "
                                       "not ${SHARE}/… or ${PROGRAM_TOP}/…: the share folder "
                                       "was found from the project's old place "
                                       "(share/project/), and the new place has none.",
                                       n_share_dropped),
                          n_share_dropped);
}

/* The file text of @tree, to @out or else to @sink: one top-level pair at a time
 * (Choreonoid leaves a blank line after optional_plugins). Once a write to @sink has
 * failed, the pairs left are not made. */
static void
emit_tree (const KmYamlNode *tree,
           GString          *out,
           KmFormatSink     *sink)
{
  for (guint i = 0;
       i < km_yaml_node_get_length (tree) && (sink == NULL || !km_format_sink_failed (sink));
       i++)
    {
      g_autoptr(KmYamlNode) one = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
      KmYamlNode *key = km_yaml_mapping_get_key (tree, i);
      gboolean blank = scalar_is (key, "optional_plugins")
                       && i + 1 < km_yaml_node_get_length (tree);

      km_yaml_mapping_append_node (one, km_yaml_node_ref (key),
                                   km_yaml_node_ref (km_yaml_mapping_get_value (tree, i)));
      if (sink != NULL)
        {
          km_yaml_emit_to_sink (one, sink);
          if (blank)
            km_format_sink_write (sink, "\n", 1);
        }
      else
        {
          km_yaml_emit (one, out);
          if (blank)
            g_string_append_c (out, '\n');
        }
    }
}

char *
km_cnoid_tree_to_string (const KmYamlNode *tree,
                         gsize            *length)
{
  GString *out;

  g_return_val_if_fail (tree != NULL, NULL);
  g_return_val_if_fail (km_yaml_node_get_kind (tree) == KM_YAML_MAPPING, NULL);

  out = g_string_new (NULL);
  emit_tree (tree, out, NULL);
  if (length != NULL)
    *length = out->len;
  return g_string_free (out, FALSE);
}

typedef struct
{
  const KmYamlNode *tree;
  const char       *head;
} TreeSave;

static gboolean
write_tree (KmFormatSink  *sink,
            gpointer       user_data,
            GError       **error)
{
  TreeSave *save = user_data;

  if (save->head != NULL)
    km_format_sink_write (sink, save->head, -1);
  emit_tree (save->tree, NULL, sink);
  return !km_format_sink_failed (sink);
}

gboolean
km_cnoid_tree_save (const KmYamlNode  *tree,
                    const char        *head,
                    const char        *path,
                    int                new_mode,
                    GError           **error)
{
  TreeSave save = { tree, head };

  g_return_val_if_fail (tree != NULL, FALSE);
  g_return_val_if_fail (km_yaml_node_get_kind (tree) == KM_YAML_MAPPING, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return km_format_save_stream (path, new_mode, write_tree, &save, error);
}

/* The file text, and (out) the ids the items were given. */
static char *
write_project (KmProject   *project,
               const char  *path,
               gsize       *length,
               GHashTable **ids_out)
{
  g_autoptr(KmYamlNode) tree = build_tree (project, path, ids_out);

  return km_cnoid_tree_to_string (tree, length);
}

char *
km_cnoid_to_string (KmProject   *project,
                    const char  *path,
                    gsize       *length,
                    GError     **error)
{
  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return write_project (project, path, length, NULL);
}

char *
km_cnoid_to_string_for_save (KmProject   *project,
                             const char  *path,
                             gsize       *length,
                             GHashTable **ids)
{
  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (ids != NULL, NULL);

  return write_project (project, path, length, ids);
}

void
km_cnoid_saved (KmProject  *project,
                GHashTable *ids)
{
  GHashTableIter iter;
  gpointer item, id;
  gint64 max_id = -1;
  gint64 *max_read;

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (ids != NULL);

  g_hash_table_iter_init (&iter, ids);
  while (g_hash_table_iter_next (&iter, &item, &id))
    {
      km_item_set_id (item, *(gint64 *) id);
      max_id = MAX (max_id, *(gint64 *) id);
    }
  max_read = g_object_get_data (G_OBJECT (project), MAX_ID_KEY);
  if (max_read != NULL)
    max_id = MAX (max_id, *max_read);
  g_object_set_data_full (G_OBJECT (project), MAX_ID_KEY, g_memdup2 (&max_id, sizeof max_id),
                          g_free);
}

/*
 * Sub-projects are saved as Choreonoid's SubProjectItem saves them: each to its own file,
 * in the same way as the project (atomically, its file references written for its own
 * folder, what Kinema does not read kept), and only when its text differs from what was
 * last read or written there: an unchanged sub-project (or one read from a file that
 * Choreonoid wrote, whose whitespace Kinema's writer would change) is not rewritten.
 * Saved elsewhere (Save As), the project keeps referring to the same sub-project files
 * (the reference is rewritten for the new folder like every file reference) rather than
 * taking copies of them: a sub-project is often shared by several projects, and a copy
 * would split the user's work into two files that drift apart.
 */
struct _KmCnoidSubSave
{
  KmItem     *item;        /* the sub-project item (main thread only) */
  KmProject  *project;     /* the project read from its file (main thread only) */
  char       *path;
  KmYamlNode *tree;
  GHashTable *ids;         /* main thread only */
  char       *digest;      /* of the text as last read or written */
  char       *new_digest;  /* of this save's text, once made */
  char       *text;        /* this save's text, once made and until written */
  gsize       length;
  char       *file_digest; /* of the file's bytes as last read or written, or NULL: not
                            * checked (SUB_FILE_KEY) */
  char       *found;       /* what km_cnoid_sub_save_check found there (NULL: no file) */
  gboolean    written;
  /* Two sub-project items naming the same file: the later ones' first (not owned), whose
   * group_digest is that of the text the group wrote (NULL: none yet). A group writes its
   * file once: an edited copy that differs from what another copy wrote is refused. */
  KmCnoidSubSave *first;
  char       *group_digest;
  char       *check_digest;  /* likewise for the checks, before anything is written */
  gboolean    in_sync;     /* not written, but its text is the file's now */
};

static void
sub_save_free (KmCnoidSubSave *save)
{
  g_clear_object (&save->item);
  g_clear_object (&save->project);
  g_free (save->path);
  g_clear_pointer (&save->tree, km_yaml_node_unref);
  g_clear_pointer (&save->ids, g_hash_table_unref);
  g_free (save->digest);
  g_free (save->new_digest);
  g_free (save->text);
  g_free (save->file_digest);
  g_free (save->found);
  g_free (save->group_digest);
  g_free (save->check_digest);
  g_free (save);
}

static void
collect_sub_project (gpointer item,
                     gpointer user_data)
{
  GPtrArray *saves = user_data;
  KmProject *sub = g_object_get_data (G_OBJECT (item), SUB_PROJECT_KEY);
  KmCnoidSubSave *save;

  if (!KM_IS_SUB_PROJECT_ITEM (item) || sub == NULL)
    return;
  save = g_new0 (KmCnoidSubSave, 1);
  save->item = g_object_ref (item);
  save->project = g_object_ref (sub);
  save->path = g_strdup (g_object_get_data (G_OBJECT (item), SUB_PATH_KEY));
  save->digest = g_strdup (g_object_get_data (G_OBJECT (item), SUB_DIGEST_KEY));
  save->file_digest = g_strdup (g_object_get_data (G_OBJECT (item), SUB_FILE_KEY));
  save->tree = build_tree_full (sub, item, save->path, FALSE, &save->ids, NULL, NULL);
  /* The innermost first. */
  g_ptr_array_insert (saves, 0, save);
}

GPtrArray *
km_cnoid_build_sub_projects (KmProject *project)
{
  GPtrArray *saves;

  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);

  saves = g_ptr_array_new_with_free_func ((GDestroyNotify) sub_save_free);
  km_item_foreach (km_project_get_root_item (project), collect_sub_project, saves);
  for (guint i = 0; i < saves->len; i++)
    {
      KmCnoidSubSave *save = g_ptr_array_index (saves, i);

      for (guint j = 0; j < i && save->first == NULL; j++)
        {
          KmCnoidSubSave *earlier = g_ptr_array_index (saves, j);

          if (earlier->first == NULL && g_strcmp0 (earlier->path, save->path) == 0)
            save->first = earlier;
        }
    }
  return saves;
}

const char *
km_cnoid_sub_save_get_path (KmCnoidSubSave *save)
{
  g_return_val_if_fail (save != NULL, NULL);

  return save->path;
}

gboolean
km_cnoid_sub_save_get_written (KmCnoidSubSave *save)
{
  g_return_val_if_fail (save != NULL, FALSE);

  return save->written;
}

/* This save's text of the sub-project, made once (by the check or the write). */
static void
make_sub_text (KmCnoidSubSave *save)
{
  if (save->text != NULL)
    return;
  save->text = km_cnoid_tree_to_string (save->tree, &save->length);
  g_free (save->new_digest);
  save->new_digest = text_digest (save->text, save->length);
}

gboolean
km_cnoid_sub_save_check (KmCnoidSubSave  *save,
                         GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *name = NULL;
  KmCnoidSubSave *first;

  g_return_val_if_fail (save != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  make_sub_text (save);
  /* Not written: nothing of anyone's is lost. */
  if (g_strcmp0 (save->new_digest, save->digest) == 0)
    return TRUE;
  /* Copies of one file with different changes: refused before any is written. */
  first = save->first != NULL ? save->first : save;
  if (first->check_digest == NULL)
    first->check_digest = g_strdup (save->new_digest);
  else if (strcmp (first->check_digest, save->new_digest) != 0)
    {
      g_autofree char *shown = km_parse_shown_file (save->path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   /* Translators: the sub-project's file */
                   _("The sub-project %s was not saved: it is included more than once, "
                     "with different changes in each"), shown);
      return FALSE;
    }
  /* As for the project's file (km-document-io.c): another program's change since it was
   * read or written here is not written over unasked. Its bytes, not its time: a `touch`
   * or the same text written again loses nothing. */
  if (save->file_digest == NULL)
    return TRUE;
  g_clear_pointer (&save->found, g_free);
  file = g_file_new_for_path (save->path);
  save->found = km_format_file_checksum (file, NULL, &local_error);
  if (save->found != NULL && strcmp (save->found, save->file_digest) == 0)
    return TRUE;
  {
    g_autofree char *base = g_path_get_basename (save->path);

    name = km_parse_shown_file (base);   /* as every message shows a file name */
  }
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 /* Translators: %s is the sub-project's file name */
                 _("The sub-project “%s” was deleted or moved since Kinema last read or "
                   "saved it."), name);
  else if (save->found == NULL)
    /* Whether it changed cannot be told: it is not written over unasked either. */
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG,
                 /* Translators: %s is the sub-project's file name, then the system's reason */
                 _("The sub-project “%s” cannot be read to check it for changes since it "
                   "was opened: %s"), name, local_error->message);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG,
                 /* Translators: %s is the sub-project's file name */
                 _("The sub-project “%s” has changed on disk since Kinema last read or "
                   "saved it."), name);
  return FALSE;
}

const char *
km_cnoid_sub_save_get_found (KmCnoidSubSave *save)
{
  g_return_val_if_fail (save != NULL, NULL);

  return save->found;
}

static void
accept_sub_project_file (gpointer item,
                         gpointer user_data)
{
  const char * const *path_found = user_data;

  if (KM_IS_SUB_PROJECT_ITEM (item)
      && g_strcmp0 (g_object_get_data (G_OBJECT (item), SUB_PATH_KEY), path_found[0]) == 0)
    g_object_set_data_full (G_OBJECT (item), SUB_FILE_KEY, g_strdup (path_found[1]), g_free);
}

void
km_cnoid_accept_sub_project_file (KmProject  *project,
                                  const char *path,
                                  const char *found)
{
  const char *path_found[] = { path, found };

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (path != NULL);

  km_item_foreach (km_project_get_root_item (project), accept_sub_project_file,
                   (gpointer) path_found);
}

gboolean
km_cnoid_sub_save_write (KmCnoidSubSave  *save,
                         GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  KmCnoidSubSave *first;

  g_return_val_if_fail (save != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  first = save->first != NULL ? save->first : save;
  make_sub_text (save);
  text = g_steal_pointer (&save->text);
  length = save->length;
  save->in_sync = FALSE;
  if (g_strcmp0 (save->new_digest, save->digest) == 0)
    return TRUE;
  /* The same file under another sub-project item too: written once, with the one edit. */
  if (first->group_digest != NULL)
    {
      g_autofree char *shown = NULL;

      if (strcmp (first->group_digest, save->new_digest) == 0)
        {
          save->in_sync = TRUE;
          return TRUE;
        }
      shown = km_parse_shown_file (save->path);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   /* Translators: the sub-project's file */
                   _("The sub-project %s was not saved: it is included more than once, "
                     "with different changes in each"), shown);
      return FALSE;
    }
  /* (Another program's changes to the file: km_cnoid_sub_save_check, before any write.) */
  if (!km_format_save_data (save->path, text, length, &local_error))
    {
      g_autofree char *shown = km_parse_shown_file (save->path);

      g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code),
                   /* Translators: the sub-project's file, then why */
                   _("The sub-project %s was not saved: %s"), shown,
                   local_error->message);
      return FALSE;
    }
  save->written = TRUE;
  first->group_digest = g_strdup (save->new_digest);
  return TRUE;
}

void
km_cnoid_sub_save_done (KmCnoidSubSave *save)
{
  KmItem *root;
  GHashTableIter iter;
  gpointer item, id;
  gint64 max_id = -1;
  gint64 *max_read;
  KmCnoidSubSave *first;

  g_return_if_fail (save != NULL);

  /* What the file holds now is what this save (or, for another item naming the same file,
   * that item's) wrote: the next check compares with it. Kinema's own write is no change
   * of another program's, also for a copy that was not written. */
  first = save->first != NULL ? save->first : save;
  if (first->group_digest != NULL)
    g_object_set_data_full (G_OBJECT (save->item), SUB_FILE_KEY,
                            g_strdup (first->group_digest), g_free);
  if (!save->written && !save->in_sync)
    return;
  /* The items take the ids of the sub-project's file, as km_cnoid_saved() does. */
  root = km_project_get_root_item (save->project);
  g_hash_table_iter_init (&iter, save->ids);
  while (g_hash_table_iter_next (&iter, &item, &id))
    {
      max_id = MAX (max_id, *(gint64 *) id);
      if (item == root)
        {
          km_item_set_id (item, *(gint64 *) id);
          continue;
        }
      g_object_set_data_full (item, SUB_ID_KEY, g_memdup2 (id, sizeof (gint64)), g_free);
      g_object_set_data (item, FROM_SUB_KEY, GINT_TO_POINTER (1));
    }
  max_read = g_object_get_data (G_OBJECT (save->project), MAX_ID_KEY);
  if (max_read != NULL)
    max_id = MAX (max_id, *max_read);
  g_object_set_data_full (G_OBJECT (save->project), MAX_ID_KEY,
                          g_memdup2 (&max_id, sizeof max_id), g_free);
  g_object_set_data_full (G_OBJECT (save->item), SUB_DIGEST_KEY, g_strdup (save->new_digest),
                          g_free);
  save->written = FALSE;
  save->in_sync = FALSE;
}

static void
subs_done (GPtrArray *subs)
{
  for (guint i = 0; i < subs->len; i++)
    km_cnoid_sub_save_done (g_ptr_array_index (subs, i));
}

gboolean
km_cnoid_save (KmProject   *project,
               const char  *path,
               GError     **error)
{
  g_autoptr(GPtrArray) subs = NULL;
  g_autoptr(GHashTable) ids = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(KmYamlNode) tree = NULL;

  g_return_val_if_fail (KM_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* The sub-projects first: when one cannot be written, neither is the project; when
   * another program changed one, nothing is written. The project's text is written as
   * it is made (km_cnoid_tree_save()), never whole in memory. */
  subs = km_cnoid_build_sub_projects (project);
  tree = build_tree (project, path, &ids);
  for (guint i = 0; i < subs->len; i++)
    if (!km_cnoid_sub_save_check (g_ptr_array_index (subs, i), error))
      return FALSE;
  for (guint i = 0; i < subs->len; i++)
    if (!km_cnoid_sub_save_write (g_ptr_array_index (subs, i), error))
      {
        subs_done (subs);
        return FALSE;
      }
  if (!km_cnoid_tree_save (tree, NULL, path, 0666, &local_error))
    {
      subs_done (subs);
      g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code),
                   _("The project was not saved: %s"), local_error->message);
      return FALSE;
    }
  subs_done (subs);
  km_cnoid_saved (project, ids);
  km_project_set_file (project, path);
  km_project_set_clean (project);
  return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* Autosave copies of sub-projects */

/*
 * A sub-project's edits are in no file the project writes: an autosave of the project alone
 * would recover the sub-project as its file holds it. So an autosave keeps a copy of each
 * changed sub-project in its own folder (km_cnoid_take_sub_copies), and the autosaved
 * project refers to the copies while its tree is made; a sub-project holding a changed one,
 * however deep, is copied too, its copy referring to the inner copy. The copies refer to
 * their files absolutely (their folder goes once recovered), and an index beside them
 * (SUB_COPIES_INDEX) names, for each, the file it stands for, what was last read or written
 * there (the digests a save compares with). A recovery reads the project with the copies,
 * then gives each sub-project item its own file back (km_cnoid_restore_sub_copies).
 */

#define SUB_COPIES_INDEX "sub-projects.ini"

typedef struct
{
  KmItem     *item;      /* main thread only */
  KmYamlNode *data;      /* the item's data before it referred to the copy (main thread only) */
  char       *path;
  KmYamlNode *tree;
} SubCopy;

struct _KmCnoidSubCopies
{
  char      *dir;
  GPtrArray *copies;     /* of SubCopy */
  char      *index;      /* SUB_COPIES_INDEX's text */
};

static void
sub_copy_free (SubCopy *copy)
{
  g_clear_object (&copy->item);
  g_clear_pointer (&copy->data, km_yaml_node_unref);
  g_free (copy->path);
  g_clear_pointer (&copy->tree, km_yaml_node_unref);
  g_free (copy);
}

/* @item (a sub-project item) with its `file` (or `filename`) set to @file. */
static void
set_sub_file (KmItem     *item,
              const char *file)
{
  static const char * const keys[] = { "file", "filename", NULL };
  KmYamlNode *data = km_item_get_data (item);
  g_autoptr(KmYamlNode) changed = NULL;
  const char *key = "file";
  KmItemIo io = { 0, };

  for (guint k = 0; data != NULL && keys[k] != NULL; k++)
    if (km_yaml_mapping_lookup (data, keys[k]) != NULL)
      {
        key = keys[k];
        break;
      }
  changed = data != NULL && km_yaml_node_get_kind (data) == KM_YAML_MAPPING
            ? km_yaml_node_copy (data) : km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_yaml_mapping_set (changed, key, km_yaml_node_new_string (file));
  km_item_restore (item, changed, &io, NULL);
}

/* Whether the sub-project read into @item differs from what was last read from or written
 * to its file (a save would write it). Makes its text. */
static gboolean
sub_project_changed (KmItem *item)
{
  KmProject *sub = g_object_get_data (G_OBJECT (item), SUB_PROJECT_KEY);
  const char *path = g_object_get_data (G_OBJECT (item), SUB_PATH_KEY);
  g_autoptr(KmYamlNode) tree = build_tree_full (sub, item, path, FALSE, NULL, NULL, NULL);
  g_autofree char *text = NULL;
  g_autofree char *digest = NULL;
  gsize length = 0;

  text = km_cnoid_tree_to_string (tree, &length);
  digest = text_digest (text, length);
  return g_strcmp0 (digest, g_object_get_data (G_OBJECT (item), SUB_DIGEST_KEY)) != 0;
}

static void
collect_sub_items (gpointer item,
                   gpointer user_data)
{
  /* The innermost first. */
  if (KM_IS_SUB_PROJECT_ITEM (item) && g_object_get_data (item, SUB_PROJECT_KEY) != NULL)
    g_ptr_array_insert (user_data, 0, g_object_ref (item));
}

/* Whether one of @copies is of a sub-project inside @item. */
static gboolean
holds_copied (KmItem    *item,
              GPtrArray *copies)
{
  for (guint i = 0; i < copies->len; i++)
    if (km_item_is_ancestor_of (item, ((SubCopy *) g_ptr_array_index (copies, i))->item))
      return TRUE;
  return FALSE;
}

/* Notes in @index, under @name (the copy's), what @item's sub-project stands for. */
static void
index_sub_copy (GKeyFile   *index,
                const char *name,
                KmItem     *item)
{
  const char *digest = g_object_get_data (G_OBJECT (item), SUB_DIGEST_KEY);
  const char *file_digest = g_object_get_data (G_OBJECT (item), SUB_FILE_KEY);

  g_key_file_set_string (index, name, "path", g_object_get_data (G_OBJECT (item), SUB_PATH_KEY));
  if (digest != NULL)
    g_key_file_set_string (index, name, "digest", digest);
  if (file_digest != NULL)
    g_key_file_set_string (index, name, "file-digest", file_digest);
}

/**
 * km_cnoid_take_sub_copies:
 * @dir: the folder the copies go to (made when they are written)
 *
 * On the project's thread: the sub-projects of @project that differ from their files, and
 * those holding one, each to be copied into @dir; their items refer to the copies until
 * km_cnoid_put_back_sub_copies(), to call once the autosave's tree is made.
 *
 * Returns: (transfer full) (nullable): the copies to write, %NULL when no sub-project
 *   changed
 */
KmCnoidSubCopies *
km_cnoid_take_sub_copies (KmProject  *project,
                          const char *dir)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GKeyFile) index = g_key_file_new ();
  KmCnoidSubCopies *copies;

  g_return_val_if_fail (KM_IS_PROJECT (project), NULL);
  g_return_val_if_fail (dir != NULL, NULL);

  km_item_foreach (km_project_get_root_item (project), collect_sub_items, items);
  copies = g_new0 (KmCnoidSubCopies, 1);
  copies->dir = g_strdup (dir);
  copies->copies = g_ptr_array_new_with_free_func ((GDestroyNotify) sub_copy_free);
  for (guint i = 0; i < items->len; i++)
    {
      KmItem *item = g_ptr_array_index (items, i);
      KmProject *sub = g_object_get_data (G_OBJECT (item), SUB_PROJECT_KEY);
      g_autofree char *name = NULL;
      SubCopy *copy;

      /* An inner copy changes the text of the sub-project holding it. */
      if (!holds_copied (item, copies->copies) && !sub_project_changed (item))
        continue;
      /* Numbered only: the name is the index's group, and a GKeyFile group cannot hold
       * "[", "]" or control characters, which a file name may (the file it stands for is
       * in the index, under "path"). */
      name = g_strdup_printf ("%u.cnoid", copies->copies->len + 1);
      copy = g_new0 (SubCopy, 1);
      copy->item = g_object_ref (item);
      copy->path = g_build_filename (dir, name, NULL);
      copy->tree = build_tree_full (sub, item, copy->path, TRUE, NULL, NULL, NULL);
      index_sub_copy (index, name, item);
      if (km_item_get_data (item) != NULL)
        copy->data = km_yaml_node_ref (km_item_get_data (item));
      set_sub_file (item, copy->path);
      g_ptr_array_add (copies->copies, copy);
    }
  if (copies->copies->len == 0)
    {
      km_cnoid_sub_copies_free (copies);
      return NULL;
    }
  copies->index = g_key_file_to_data (index, NULL, NULL);
  return copies;
}

/* On the project's thread: the items of @copies refer to their own files again. */
void
km_cnoid_put_back_sub_copies (KmCnoidSubCopies *copies)
{
  KmItemIo io = { 0, };

  g_return_if_fail (copies != NULL);

  for (guint i = 0; i < copies->copies->len; i++)
    {
      SubCopy *copy = g_ptr_array_index (copies->copies, i);

      km_item_restore (copy->item, copy->data, &io, NULL);
    }
}

/**
 * km_cnoid_sub_copies_write:
 *
 * Writes the copies and their index into their folder, stopping at the first failure.
 * Touches no item: runs on any thread.
 */
gboolean
km_cnoid_sub_copies_write (KmCnoidSubCopies  *copies,
                           GError           **error)
{
  g_autofree char *index_path = NULL;

  g_return_val_if_fail (copies != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_mkdir_with_parents (copies->dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   /* Translators: a folder, then the system's reason */
                   _("%s: cannot create the folder: %s"), copies->dir, g_strerror (saved_errno));
      return FALSE;
    }
  for (guint i = 0; i < copies->copies->len; i++)
    {
      SubCopy *copy = g_ptr_array_index (copies->copies, i);

      if (!km_cnoid_tree_save (copy->tree, NULL, copy->path, 0600, error))
        return FALSE;
    }
  index_path = g_build_filename (copies->dir, SUB_COPIES_INDEX, NULL);
  return km_format_save_data_full (index_path, copies->index, -1, 0600, error);
}

/* On the project's thread (it holds items). */
void
km_cnoid_sub_copies_free (KmCnoidSubCopies *copies)
{
  if (copies == NULL)
    return;
  g_ptr_array_unref (copies->copies);
  g_free (copies->index);
  g_free (copies->dir);
  g_free (copies);
}

typedef struct
{
  const char *dir;        /* canonical */
  GHashTable *indexes;    /* folder → GKeyFile */
} CopyScan;

/* The index of the copies in @folder, read once. */
static GKeyFile *
copies_index (CopyScan   *scan,
              const char *folder)
{
  GKeyFile *index = g_hash_table_lookup (scan->indexes, folder);

  if (index == NULL)
    {
      g_autofree char *path = g_build_filename (folder, SUB_COPIES_INDEX, NULL);

      index = g_key_file_new ();
      g_key_file_load_from_file (index, path, G_KEY_FILE_NONE, NULL);
      g_hash_table_insert (scan->indexes, g_strdup (folder), index);
    }
  return index;
}

static void
restore_sub_copy (gpointer item,
                  gpointer user_data)
{
  CopyScan *scan = user_data;
  const char *path = g_object_get_data (item, SUB_PATH_KEY);
  KmProject *sub = g_object_get_data (item, SUB_PROJECT_KEY);
  g_autofree char *folder = NULL;
  g_autofree char *name = NULL;
  g_autofree char *original = NULL;
  GKeyFile *index;

  if (!KM_IS_SUB_PROJECT_ITEM (item) || sub == NULL || path == NULL
      || path_inside (path, scan->dir) == NULL)
    return;
  folder = g_path_get_dirname (path);
  name = g_path_get_basename (path);
  index = copies_index (scan, folder);
  original = g_key_file_get_string (index, name, "path", NULL);
  if (original == NULL)
    return;
  /* Absolute: the project is read from the autosave's folder, not the file's. */
  set_sub_file (item, original);
  if (km_project_get_file (sub) != NULL)
    km_project_set_file (sub, original);
  g_object_set_data_full (item, SUB_DIGEST_KEY,
                          g_key_file_get_string (index, name, "digest", NULL), g_free);
  g_object_set_data_full (item, SUB_FILE_KEY,
                          g_key_file_get_string (index, name, "file-digest", NULL), g_free);
  g_object_set_data_full (item, SUB_PATH_KEY, g_steal_pointer (&original), g_free);
}

/**
 * km_cnoid_restore_sub_copies:
 * @project: a project read from an autosave, not shown yet
 * @dir: the folder of its copies (in folders of their own below it)
 *
 * The sub-project items read from copies km_cnoid_take_sub_copies() made refer to the files
 * the copies stand for again, holding what the copies held: a save writes them there
 * (unless another program changed the file since the autosave, km_cnoid_sub_save_check).
 */
void
km_cnoid_restore_sub_copies (KmProject  *project,
                             const char *dir)
{
  g_autofree char *canonical = NULL;
  CopyScan scan;

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (dir != NULL);

  canonical = g_canonicalize_filename (dir, NULL);
  scan.dir = canonical;
  scan.indexes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) g_key_file_unref);
  km_item_foreach (km_project_get_root_item (project), restore_sub_copy, &scan);
  g_hash_table_unref (scan.indexes);
}

/* ---------------------------------------------------------------------------------------- */
/* Describing */

typedef struct
{
  GString *out;
  guint    items;
  guint    unknown;
  guint    bodies;
} Description;

static void
describe_line (Description *d,
               guint        depth,
               const char  *id,
               const char  *plugin,
               const char  *klass,
               const char  *name,
               const char  *marker)
{
  for (guint i = 0; i < depth; i++)
    g_string_append (d->out, "  ");
  /* (names escaped, so that each item stays one line) */
  g_string_append_printf (d->out, "%s ", id);
  km_format_append_value (d->out, plugin);
  g_string_append_c (d->out, '/');
  km_format_append_value (d->out, klass);
  g_string_append (d->out, " \"");
  km_format_append_value (d->out, name);
  g_string_append_printf (d->out, "\"%s\n", marker != NULL ? marker : "");
}

/* @key's scalar value in the mapping @node, or @fallback when it is missing or no scalar. */
static const char *
verbatim_scalar (const KmYamlNode *node,
                 const char       *key,
                 const char       *fallback)
{
  const KmYamlNode *value = km_yaml_mapping_lookup (node, key);
  const char *s = NULL;

  if (value != NULL && km_yaml_node_get_kind (value) == KM_YAML_SCALAR)
    s = km_yaml_node_get_scalar (value, NULL);
  return s != NULL ? s : fallback;
}

static void
describe_verbatim (Description      *d,
                   const KmYamlNode *node,
                   guint             depth)
{
  KmYamlNode *children;

  if (km_yaml_node_get_kind (node) != KM_YAML_MAPPING || depth > 256)
    {
      describe_line (d, depth, "-", "?", "?", "", " [verbatim]");
      d->items++;
      d->unknown++;
      return;
    }
  describe_line (d, depth,
                 verbatim_scalar (node, "id", "-"),
                 verbatim_scalar (node, "plugin", "?"),
                 verbatim_scalar (node, "class", "?"),
                 verbatim_scalar (node, "name", ""),
                 " [verbatim]");
  d->items++;
  d->unknown++;
  children = km_yaml_mapping_lookup (node, "children");
  if (children != NULL && km_yaml_node_get_kind (children) == KM_YAML_SEQUENCE)
    for (guint i = 0; i < km_yaml_node_get_length (children); i++)
      describe_verbatim (d, km_yaml_sequence_get (children, i), depth + 1);
}

static void
describe_item (Description *d,
               KmItem      *item,
               guint        depth,
               gboolean     written)
{
  g_autofree char *id = NULL;
  g_autofree char *targets_marker = NULL;
  const char *marker = NULL;
  gboolean verbatim = FALSE;

  written = written && is_written (item);
  if (km_item_get_id (item) >= 0)
    id = g_strdup_printf ("%" G_GINT64_FORMAT, km_item_get_id (item));
  else
    id = g_strdup ("-");

  if (KM_IS_UNKNOWN_ITEM (item))
    {
      verbatim = km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (item));
      if (verbatim && written)
        {
          describe_verbatim (d, km_unknown_item_get_node (KM_UNKNOWN_ITEM (item)), depth);
          return;
        }
      marker = " [verbatim]";
      if (written)
        d->unknown++;
    }
  else if (!written)
    marker = " [sub-project]";
  else if (KM_IS_BODY_ITEM (item) && km_body_item_get_skeleton (KM_BODY_ITEM (item)) == NULL)
    marker = " [not shown]";

  if (!written && KM_IS_UNKNOWN_ITEM (item))
    marker = " [verbatim] [sub-project]";
  /* IK targets: how many keyframes they hold, inline or in their file. */
  if (KM_IS_IK_TARGETS_ITEM (item)
      && km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)) != NULL)
    marker = targets_marker = g_strdup_printf (
      "%s keyframes=%u", marker != NULL ? marker : "",
      km_target_track_get_n_keyframes (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item))));
  describe_line (d, depth, id, km_item_get_plugin_name (item), km_item_get_class_name (item),
                 km_item_get_name (item), marker);
  if (written)
    {
      d->items++;
      if (KM_IS_BODY_ITEM (item))
        d->bodies++;
    }
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    describe_item (d, km_item_get_child (item, i), depth + 1, written);
  if (KM_IS_SUB_PROJECT_ITEM (item) && written)
    {
      KmYamlNode *kept = g_object_get_data (G_OBJECT (item), SUB_CHILDREN_KEY);

      for (guint i = 0; kept != NULL && i < km_yaml_node_get_length (kept); i++)
        describe_verbatim (d, km_yaml_sequence_get (kept, i), depth + 1);
    }
}

void
km_cnoid_describe (KmProject *project,
                   GString   *out)
{
  Description d = { out, 0, 0, 0 };

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (out != NULL);

  describe_item (&d, km_project_get_root_item (project), 0, TRUE);
  /* Never translated: scripts and tests parse it. */
  g_string_append_printf (out, "items=%u unknown=%u bodies=%u\n", d.items, d.unknown, d.bodies);
}

/* ---------------------------------------------------------------------------------------- */
/* The registry entry */

static int
cnoid_sniff (const char *data,
             gsize       length)
{
  return km_yaml_sniff_top_key (data, length, "items") ? 90 : 0;
}

static gpointer
cnoid_load (const char  *path,
            GBytes      *contents,
            GError     **error)
{
  KmProject *project = km_cnoid_load_full (path, contents, NULL, error);
  GPtrArray *messages;

  if (project == NULL)
    return NULL;
  /* Hand the load's messages to whoever listens (kinema-cli prints them, the editor logs
   * them). Each is "FILE…: text"; km_parse_warning puts the two parts back together
   * unchanged. Handed over, they leave the project: a caller that also shows the project's
   * messages (as it must after km_cnoid_load) would show each twice. */
  messages = km_project_get_messages (project);
  for (guint i = 0; i < messages->len; i++)
    {
      const char *message = g_ptr_array_index (messages, i);
      const char *split = strstr (message, ": ");
      g_autofree char *prefix = NULL;

      if (split == NULL)
        {
          km_parse_warning (path, (KmSourcePos) { 0, 0 }, "%s", message);
          continue;
        }
      prefix = g_strndup (message, split - message);
      km_parse_warning (prefix, (KmSourcePos) { 0, 0 }, "%s", split + 2);
    }
  g_ptr_array_set_size (messages, 0);
  return project;
}

static void
cnoid_free_result (gpointer result)
{
  g_object_unref (result);
}

static void
cnoid_describe (gpointer  result,
                GString  *out)
{
  km_cnoid_describe (result, out);
}

const KmFormat km_format_cnoid = {
  .name = "CNOID-PROJECT",
  .kind = KM_FILE_KIND_PROJECT,
  .description = N_("Choreonoid project (.cnoid)"),
  .sniff = cnoid_sniff,
  .load = cnoid_load,
  .free_result = cnoid_free_result,
  .describe = cnoid_describe,
};
