/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-body-handler"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <gmodule.h>

#include "km-body-handler.h"
#include "km-ik-job.h"
#include "km-skeleton-edit.h"

#define MAX_INSTANCE_SIZE ((gsize) 64 * 1024 * 1024)
#define MAX_NAME_LENGTH   255

/* The front end changes the settings on the main thread (a preference) while a project
 * load attaches on a worker: every field is read and written under @mutex. */
struct _KmBodyHandlerLoader
{
  GMutex      mutex;
  GPtrArray  *directories;    /* (element-type filename) from the front end */
  GHashTable *allowed_files;  /* canonical paths the user allowed */
  gboolean    allow_paths;
};

/* The plain-C view of a skeleton handed to handlers; shared by a set and its clones. */
typedef struct
{
  KmSkeleton            *skeleton;
  KmBodyHandlerSkeleton  view;
  KmBodyHandlerJoint    *joints;
  double                *lower;   /* per DOF: the limits Kinema enforces on linked output */
  double                *upper;
} SkeletonView;

typedef struct
{
  const KmBodyHandlerClass *klass;
  gpointer                  instance;
} Instance;

struct _KmBodyHandlerSet
{
  gatomicrefcount  ref_count;
  SkeletonView    *view;      /* g_atomic_rc_box */
  GPtrArray       *reports;   /* (element-type KmBodyHandlerReport) immutable, shared */
  Instance        *instances;
  guint            n_instances;
};

struct _KmBodyHandlerIkHook
{
  KmBodyHandlerSet *set;
  int               configuration;
};

/* A module opened once per file: its class table, or why it could not be used. */
typedef struct
{
  const KmBodyHandlerClass *klass;
  char                     *error;
} ModuleEntry;

G_LOCK_DEFINE_STATIC (modules);
static GHashTable *modules;   /* canonical path → ModuleEntry, never freed */

G_DEFINE_BOXED_TYPE (KmBodyHandlerSet, km_body_handler_set,
                     km_body_handler_set_ref, km_body_handler_set_unref)

const char *
km_body_handler_status_to_string (KmBodyHandlerStatus status)
{
  switch (status)
    {
    case KM_BODY_HANDLER_ATTACHED:
      return "attached";
    case KM_BODY_HANDLER_NOT_FOUND:
      return "not found";
    case KM_BODY_HANDLER_REFUSED:
      return "refused";
    case KM_BODY_HANDLER_FAILED:
    default:
      return "failed";
    }
}

/* Loader ---------------------------------------------------------------------------- */

KmBodyHandlerLoader *
km_body_handler_loader_new (void)
{
  KmBodyHandlerLoader *loader = g_new0 (KmBodyHandlerLoader, 1);

  g_mutex_init (&loader->mutex);
  loader->directories = g_ptr_array_new_with_free_func (g_free);
  loader->allowed_files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return loader;
}

void
km_body_handler_loader_free (KmBodyHandlerLoader *loader)
{
  if (loader == NULL)
    return;
  g_ptr_array_unref (loader->directories);
  g_hash_table_unref (loader->allowed_files);
  g_mutex_clear (&loader->mutex);
  g_free (loader);
}

/**
 * km_body_handler_loader_get_default:
 *
 * The loader body items attach with. Front ends add the preference directories and the
 * user's allowances to it at start-up, before loading models.
 *
 * Returns: (transfer none): the process-wide loader
 */
KmBodyHandlerLoader *
km_body_handler_loader_get_default (void)
{
  static KmBodyHandlerLoader *loader;

  if (g_once_init_enter (&loader))
    g_once_init_leave (&loader, km_body_handler_loader_new ());
  return loader;
}

void
km_body_handler_loader_add_directory (KmBodyHandlerLoader *loader,
                                      const char          *directory)
{
  g_return_if_fail (loader != NULL);
  g_return_if_fail (directory != NULL);

  g_mutex_lock (&loader->mutex);
  g_ptr_array_add (loader->directories, g_canonicalize_filename (directory, NULL));
  g_mutex_unlock (&loader->mutex);
}

void
km_body_handler_loader_set_allow_paths (KmBodyHandlerLoader *loader,
                                        gboolean             allow)
{
  g_return_if_fail (loader != NULL);

  g_mutex_lock (&loader->mutex);
  loader->allow_paths = !!allow;
  g_mutex_unlock (&loader->mutex);
}

void
km_body_handler_loader_allow_file (KmBodyHandlerLoader *loader,
                                   const char          *path)
{
  g_return_if_fail (loader != NULL);
  g_return_if_fail (path != NULL);

  g_mutex_lock (&loader->mutex);
  g_hash_table_add (loader->allowed_files, g_canonicalize_filename (path, NULL));
  g_mutex_unlock (&loader->mutex);
}

char **
km_body_handler_loader_get_directories (KmBodyHandlerLoader *loader)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  const char *env;

  g_return_val_if_fail (loader != NULL, NULL);

  g_mutex_lock (&loader->mutex);
  for (guint i = 0; i < loader->directories->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (loader->directories, i));
  g_mutex_unlock (&loader->mutex);
  env = g_getenv ("KINEMA_BODYHANDLER_PATH");
  if (env != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);

      for (guint i = 0; parts[i] != NULL; i++)
        if (parts[i][0] != '\0')
          {
            g_autofree char *dir = g_canonicalize_filename (parts[i], NULL);

            g_strv_builder_add (builder, dir);
          }
    }
  {
    g_autofree char *user = g_build_filename (g_get_user_data_dir (), "kinema",
                                              "bodyhandler", NULL);

    g_strv_builder_add (builder, user);
  }
  g_strv_builder_add (builder, KINEMA_HANDLER_DIR);
  return g_strv_builder_end (builder);
}

static gboolean
is_plain_name (const char *name)
{
  gsize len = strlen (name);

  if (len == 0 || len > MAX_NAME_LENGTH || name[0] == '.')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '+' && *p != '.')
      return FALSE;
  return TRUE;
}

static gboolean
looks_like_path (const char *name)
{
  return g_path_is_absolute (name) || strchr (name, '/') != NULL ||
         strchr (name, G_DIR_SEPARATOR) != NULL;
}

/* Opens (once) and checks the module at @path. Returns its class or NULL with @error. */
static const KmBodyHandlerClass *
open_module (const char  *path,
             char       **error)
{
  ModuleEntry *entry;
  GModule *module;
  gpointer factory_sym = NULL;
  gpointer version_sym = NULL;
  const KmBodyHandlerClass *klass;
  gboolean have_version;
  guint module_version = 0;

  G_LOCK (modules);
  if (modules == NULL)
    modules = g_hash_table_new (g_str_hash, g_str_equal);
  entry = g_hash_table_lookup (modules, path);
  if (entry != NULL)
    {
      klass = entry->klass;
      *error = g_strdup (entry->error);
      G_UNLOCK (modules);
      return klass;
    }

  entry = g_new0 (ModuleEntry, 1);
  g_hash_table_insert (modules, g_strdup (path), entry);

  module = g_module_open (path, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
  if (module == NULL)
    {
      entry->error = g_strdup_printf (_("failed to open the module: %s"), g_module_error ());
      goto out;
    }
  have_version = g_module_symbol (module, KM_BODY_HANDLER_VERSION_NAME, &version_sym) &&
                 version_sym != NULL;
  if (have_version)
    module_version = *(const unsigned *) version_sym;
  if (!g_module_symbol (module, KM_BODY_HANDLER_FACTORY_NAME, &factory_sym) ||
      factory_sym == NULL)
    {
      entry->error = g_strdup_printf (_("failed: the module has no %s function, so it is not "
                                        "a Kinema body handler"),
                                      KM_BODY_HANDLER_FACTORY_NAME);
      g_module_close (module);
      goto out;
    }
  if (have_version && module_version != KM_BODY_HANDLER_ABI_VERSION)
    {
      entry->error = g_strdup_printf (_("failed: ABI mismatch: the handler was built for "
                                        "body-handler ABI version %u, this Kinema provides "
                                        "version %u; rebuild the handler against this "
                                        "Kinema's km-body-handler-abi.h"),
                                      module_version, (guint) KM_BODY_HANDLER_ABI_VERSION);
      g_module_close (module);
      goto out;
    }

  klass = ((KmBodyHandlerFactoryFunc) factory_sym) (KM_BODY_HANDLER_ABI_VERSION);
  if (klass == NULL)
    {
      entry->error = g_strdup_printf (_("failed: ABI mismatch: the handler declined "
                                        "body-handler ABI version %u (it does not say which "
                                        "version it was built for)"),
                                      (guint) KM_BODY_HANDLER_ABI_VERSION);
      g_module_close (module);
      goto out;
    }
  if (klass->abi_version != KM_BODY_HANDLER_ABI_VERSION)
    {
      entry->error = g_strdup_printf (_("failed: ABI mismatch: the handler was built for "
                                        "body-handler ABI version %u, this Kinema provides "
                                        "version %u; rebuild the handler against this "
                                        "Kinema's km-body-handler-abi.h"),
                                      klass->abi_version, (guint) KM_BODY_HANDLER_ABI_VERSION);
      g_module_close (module);
      goto out;
    }
  if (klass->struct_size < sizeof (KmBodyHandlerClass) || klass->initialize == NULL ||
      klass->instance_size == 0 || klass->instance_size > MAX_INSTANCE_SIZE ||
      klass->name == NULL ||
      (klass->joint_path != NULL &&
       (klass->joint_path->struct_size < sizeof (KmBodyHandlerJointPathIface) ||
        klass->joint_path->covers == NULL || klass->joint_path->solve == NULL)) ||
      (klass->linked_joints != NULL &&
       (klass->linked_joints->struct_size < sizeof (KmBodyHandlerLinkedJointsIface) ||
        klass->linked_joints->is_linked == NULL || klass->linked_joints->update == NULL)) ||
      (klass->presentation != NULL &&
       (klass->presentation->struct_size < sizeof (KmBodyHandlerPresentationIface) ||
        klass->presentation->presents == NULL || klass->presentation->to_shown == NULL ||
        klass->presentation->from_shown == NULL ||
        klass->presentation->get_unit_label == NULL)))
    {
      if (klass->struct_size < sizeof (KmBodyHandlerClass))
        entry->error = g_strdup_printf (_("failed: the handler's class table is smaller "
                                          "(%u bytes) than this Kinema's body-handler ABI "
                                          "needs (%u bytes); rebuild the handler against "
                                          "this Kinema's km-body-handler-abi.h"),
                                        klass->struct_size,
                                        (guint) sizeof (KmBodyHandlerClass));
      else
        entry->error = g_strdup (_("failed: the handler's class table is incomplete "
                                   "(missing initialize, instance size or interface "
                                   "functions)"));
      g_module_close (module);
      goto out;
    }
  /* Clones may outlive every set that used the module: never unload it. */
  g_module_make_resident (module);
  entry->klass = klass;

out:
  klass = entry->klass;
  *error = g_strdup (entry->error);
  G_UNLOCK (modules);
  return klass;
}

static void
report_free (gpointer data)
{
  KmBodyHandlerReport *report = data;

  g_free ((char *) report->name);
  g_free ((char *) report->path);
  g_free ((char *) report->message);
  g_free ((char *) report->location);
  g_free (report);
}

static void
view_clear (gpointer data)
{
  SkeletonView *view = data;

  g_free (view->joints);
  g_free (view->lower);
  g_free (view->upper);
  km_skeleton_unref (view->skeleton);
}

static SkeletonView *
view_new (KmSkeleton *skeleton)
{
  SkeletonView *view = g_atomic_rc_box_new0 (SkeletonView);
  guint n = km_skeleton_get_n_joints (skeleton);

  view->skeleton = km_skeleton_ref (skeleton);
  view->joints = g_new0 (KmBodyHandlerJoint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      KmBodyHandlerJoint *v = &view->joints[i];

      v->name = j->name;
      v->type = (int) j->type;
      v->parent = j->parent;
      v->dof_index = j->dof_index;
      v->n_dof = j->n_dof;
      v->joint_id = j->joint_id;
      v->offset[0] = j->offset.x;
      v->offset[1] = j->offset.y;
      v->offset[2] = j->offset.z;
      v->rotation[0] = j->rotation.w;
      v->rotation[1] = j->rotation.x;
      v->rotation[2] = j->rotation.y;
      v->rotation[3] = j->rotation.z;
      v->axis[0] = j->axis.x;
      v->axis[1] = j->axis.y;
      v->axis[2] = j->axis.z;
      v->lower = j->limits[0].limited ? j->limits[0].min : -HUGE_VAL;
      v->upper = j->limits[0].limited ? j->limits[0].max : HUGE_VAL;
    }
  view->lower = g_new0 (double, MAX (km_skeleton_get_n_dof (skeleton), 1));
  view->upper = g_new0 (double, MAX (km_skeleton_get_n_dof (skeleton), 1));
  km_skeleton_get_dof_limits (skeleton, view->lower, view->upper);
  view->view.struct_size = sizeof (KmBodyHandlerSkeleton);
  view->view.name = km_skeleton_get_root_name (skeleton);
  view->view.n_joints = n;
  view->view.n_dof = km_skeleton_get_n_dof (skeleton);
  view->view.joints = view->joints;
  return view;
}

static void
log_cb (void       *log_data,
        int         level,
        const char *message)
{
  GString *log = log_data;

  if (message == NULL || !g_utf8_validate (message, -1, NULL))
    return;
  if (log->len > 0)
    g_string_append_c (log, '\n');
  /* A chatty handler cannot flood the message view. */
  if (log->len < 16384)
    g_string_append_len (log, message, MIN (strlen (message), 4096));
}

static const char *
fallback_text (void)
{
  return _("the model loads without it (numeric IK, unlinked joints, plain joint values)");
}

static KmBodyHandlerIfaces
class_ifaces (const KmBodyHandlerClass *klass)
{
  return (klass->joint_path != NULL ? KM_BODY_HANDLER_IFACE_JOINT_PATH : 0) |
         (klass->linked_joints != NULL ? KM_BODY_HANDLER_IFACE_LINKED_JOINTS : 0) |
         (klass->presentation != NULL ? KM_BODY_HANDLER_IFACE_PRESENTATION : 0);
}

/* Finds the file for @name, or sets the report's status and message. */
static char *
resolve (KmBodyHandlerLoader *loader,
         const char          *name,
         const char          *model_dir,
         KmBodyHandlerReport *report)
{
  if (looks_like_path (name))
    {
      g_autofree char *file = NULL;
      g_autofree char *base = NULL;
      g_autofree char *canonical = NULL;
      gboolean allowed;

      if (g_str_has_suffix (name, "." G_MODULE_SUFFIX))
        file = g_strdup (name);
      else
        file = g_strconcat (name, "." G_MODULE_SUFFIX, NULL);
      /* g_canonicalize_filename needs an absolute base: a model opened by a relative
       * path ("dir/model.json", "." for "model.json") has a relative directory, which
       * means the current one. */
      if (model_dir != NULL)
        base = g_canonicalize_filename (model_dir, NULL);
      canonical = g_canonicalize_filename (file, base);
      g_mutex_lock (&loader->mutex);
      allowed = loader->allow_paths || g_hash_table_contains (loader->allowed_files, canonical);
      g_mutex_unlock (&loader->mutex);
      if (!allowed)
        {
          report->status = KM_BODY_HANDLER_REFUSED;
          report->message =
            g_strdup_printf (_("Body handler “%s” refused: a model may name a handler only by "
                               "its name, found in the trusted handler directories, not by a "
                               "path (allow handler paths in the preferences to load it); %s."),
                             name, fallback_text ());
          return NULL;
        }
      if (!g_file_test (canonical, G_FILE_TEST_IS_REGULAR))
        {
          report->status = KM_BODY_HANDLER_NOT_FOUND;
          report->message = g_strdup_printf (_("Body handler “%s” not found: there is no file "
                                               "“%s”; %s."),
                                             name, canonical, fallback_text ());
          return NULL;
        }
      return g_steal_pointer (&canonical);
    }

  if (!is_plain_name (name))
    {
      report->status = KM_BODY_HANDLER_REFUSED;
      report->message = g_strdup_printf (_("Body handler “%s” refused: a handler name may only "
                                           "hold letters, digits, “_”, “-”, “+” and “.”; %s."),
                                         name, fallback_text ());
      return NULL;
    }

  {
    g_auto(GStrv) dirs = km_body_handler_loader_get_directories (loader);
    g_autofree char *file = g_strconcat (name, "." G_MODULE_SUFFIX, NULL);
    g_autofree char *list = NULL;

    for (guint i = 0; dirs[i] != NULL; i++)
      {
        g_autofree char *path = g_build_filename (dirs[i], file, NULL);

        if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
          return g_steal_pointer (&path);
      }
    list = g_strjoinv (G_SEARCHPATH_SEPARATOR_S, dirs);
    report->status = KM_BODY_HANDLER_NOT_FOUND;
    report->message = g_strdup_printf (_("Body handler %s not found: no %s in the trusted "
                                         "handler directories (%s); %s."),
                                       name, file, list, fallback_text ());
    return NULL;
  }
}

static void
attach_one (KmBodyHandlerLoader *loader,
            KmBodyHandlerSet    *set,
            GArray              *instances,
            const char          *name,
            const char          *model_dir)
{
  KmBodyHandlerReport *report = g_new0 (KmBodyHandlerReport, 1);
  g_autofree char *path = NULL;
  g_autofree char *error = NULL;
  const KmBodyHandlerClass *klass;
  const char *model = km_skeleton_get_root_name (set->view->skeleton);

  report->name = g_strdup (name);
  report->location = g_strdup (km_skeleton_get_body_handler_location (set->view->skeleton, name));
  g_ptr_array_add (set->reports, report);
  path = resolve (loader, name, model_dir, report);
  if (path == NULL)
    return;
  report->path = g_strdup (path);

  klass = open_module (path, &error);
  if (klass == NULL)
    {
      report->status = KM_BODY_HANDLER_FAILED;
      report->message = g_strdup_printf (_("Body handler %s at “%s” %s; %s."),
                                         name, path, error, fallback_text ());
      return;
    }

  {
    g_autoptr(GString) log = g_string_new (NULL);
    Instance inst = { klass, g_malloc0 (klass->instance_size) };

    if (!klass->initialize (inst.instance, &set->view->view, log_cb, log))
      {
        if (klass->finalize != NULL)
          klass->finalize (inst.instance);
        g_free (inst.instance);
        report->status = KM_BODY_HANDLER_FAILED;
        report->message =
          g_strdup_printf (_("Body handler %s failed to initialize on %s: %s; %s."),
                           name, model, log->len > 0 ? log->str : _("no reason given"),
                           fallback_text ());
        return;
      }
    g_array_append_val (instances, inst);
    report->status = KM_BODY_HANDLER_ATTACHED;
    report->ifaces = class_ifaces (klass);
    report->message = g_strdup_printf (_("Body handler %s was found at “%s”.\n"
                                         "Body handler %s has been loaded to %s.%s%s"),
                                       name, path, name, model,
                                       log->len > 0 ? "\n" : "", log->str);
  }
}

KmBodyHandlerSet *
km_body_handler_loader_attach (KmBodyHandlerLoader *loader,
                               KmSkeleton          *skeleton,
                               const char * const  *extra_names,
                               const char          *model_dir)
{
  KmBodyHandlerSet *set;
  g_autoptr(GArray) instances = NULL;
  g_autoptr(GHashTable) seen = NULL;
  const char * const *lists[2];

  g_return_val_if_fail (loader != NULL, NULL);
  g_return_val_if_fail (skeleton != NULL, NULL);

  set = g_new0 (KmBodyHandlerSet, 1);
  g_atomic_ref_count_init (&set->ref_count);
  set->view = view_new (skeleton);
  set->reports = g_ptr_array_new_with_free_func (report_free);
  instances = g_array_new (FALSE, FALSE, sizeof (Instance));
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  lists[0] = km_skeleton_get_body_handlers (skeleton);
  lists[1] = extra_names;
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] != NULL && lists[l][i] != NULL; i++)
      if (g_hash_table_add (seen, (gpointer) lists[l][i]))
        attach_one (loader, set, instances, lists[l][i], model_dir);
  set->n_instances = instances->len;
  set->instances = (Instance *) (void *) g_array_free (g_steal_pointer (&instances), FALSE);
  return set;
}

/* Set ------------------------------------------------------------------------------- */

KmBodyHandlerSet *
km_body_handler_set_ref (KmBodyHandlerSet *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
km_body_handler_set_unref (KmBodyHandlerSet *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  for (guint i = 0; i < self->n_instances; i++)
    {
      if (self->instances[i].klass->finalize != NULL)
        self->instances[i].klass->finalize (self->instances[i].instance);
      g_free (self->instances[i].instance);
    }
  g_free (self->instances);
  g_ptr_array_unref (self->reports);
  g_atomic_rc_box_release_full (self->view, view_clear);
  g_free (self);
}

/**
 * km_body_handler_set_clone:
 *
 * A deep copy for another thread: every handler instance is cloned (the skeleton view
 * and reports are immutable and shared). A handler whose clone fails is left out of the
 * copy (its report still says attached; the copy just behaves as if it were missing).
 *
 * Returns: (transfer full): the copy
 */
KmBodyHandlerSet *
km_body_handler_set_clone (const KmBodyHandlerSet *self)
{
  KmBodyHandlerSet *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_new0 (KmBodyHandlerSet, 1);
  g_atomic_ref_count_init (&copy->ref_count);
  copy->view = g_atomic_rc_box_acquire (self->view);
  copy->reports = g_ptr_array_ref (self->reports);
  copy->instances = g_new0 (Instance, MAX (self->n_instances, 1));
  for (guint i = 0; i < self->n_instances; i++)
    {
      const Instance *src = &self->instances[i];
      Instance dst = { src->klass, g_malloc0 (src->klass->instance_size) };

      if (src->klass->clone == NULL)
        memcpy (dst.instance, src->instance, src->klass->instance_size);
      else if (!src->klass->clone (dst.instance, src->instance))
        {
          g_free (dst.instance);
          continue;
        }
      copy->instances[copy->n_instances++] = dst;
    }
  return copy;
}

KmSkeleton *
km_body_handler_set_get_skeleton (const KmBodyHandlerSet *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->view->skeleton;
}

guint
km_body_handler_set_get_n_reports (const KmBodyHandlerSet *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->reports->len;
}

const KmBodyHandlerReport *
km_body_handler_set_get_report (const KmBodyHandlerSet *self,
                                guint                   index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->reports->len, NULL);

  return g_ptr_array_index (self->reports, index);
}

guint
km_body_handler_set_get_n_attached (const KmBodyHandlerSet *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_instances;
}

gboolean
km_body_handler_set_is_attached (const KmBodyHandlerSet *self,
                                 const char             *name)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < self->reports->len; i++)
    {
      const KmBodyHandlerReport *r = g_ptr_array_index (self->reports, i);

      if (g_strcmp0 (r->name, name) == 0)
        return r->status == KM_BODY_HANDLER_ATTACHED;
    }
  return FALSE;
}

/**
 * km_body_handler_set_describe:
 *
 * One line per handler the model names: `handler NAME: attached (IFACES) from PATH`, or
 * `handler NAME: not found|refused|failed: MESSAGE` (message lines joined by "; ").
 * IFACES is a comma-separated subset of joint-path, linked-joints, presentation.
 */
void
km_body_handler_set_describe (const KmBodyHandlerSet *self,
                              GString                *out)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (out != NULL);

  for (guint i = 0; i < self->reports->len; i++)
    {
      const KmBodyHandlerReport *r = g_ptr_array_index (self->reports, i);

      g_string_append_printf (out, "handler %s: %s", r->name,
                              km_body_handler_status_to_string (r->status));
      if (r->status == KM_BODY_HANDLER_ATTACHED)
        {
          const char *sep = "";

          g_string_append (out, " (");
          if (r->ifaces & KM_BODY_HANDLER_IFACE_JOINT_PATH)
            g_string_append_printf (out, "%sjoint-path", sep), sep = ",";
          if (r->ifaces & KM_BODY_HANDLER_IFACE_LINKED_JOINTS)
            g_string_append_printf (out, "%slinked-joints", sep), sep = ",";
          if (r->ifaces & KM_BODY_HANDLER_IFACE_PRESENTATION)
            g_string_append_printf (out, "%spresentation", sep), sep = ",";
          if (r->ifaces == 0)
            g_string_append (out, "no interfaces");
          g_string_append_printf (out, ") from %s\n", r->path);
        }
      else
        {
          g_auto(GStrv) lines = g_strsplit (r->message, "\n", -1);
          g_autofree char *joined = g_strjoinv ("; ", lines);

          g_string_append_printf (out, ": %s\n", joined);
        }
    }
}

/* Joint path ------------------------------------------------------------------------ */

static const Instance *
find_path (const KmBodyHandlerSet *self,
           int                     base,
           int                     end)
{
  guint n = km_skeleton_get_n_joints (self->view->skeleton);

  if (end < 0 || (guint) end >= n || base < -1 || base >= (int) n)
    return NULL;
  for (guint i = 0; i < self->n_instances; i++)
    {
      const Instance *inst = &self->instances[i];

      if (inst->klass->joint_path != NULL &&
          inst->klass->joint_path->covers (inst->instance, base, end))
        return inst;
    }
  return NULL;
}

gboolean
km_body_handler_set_covers_path (const KmBodyHandlerSet *self,
                                 int                     base,
                                 int                     end)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return find_path (self, base, end) != NULL;
}

guint
km_body_handler_set_get_n_configurations (const KmBodyHandlerSet *self,
                                          int                     base,
                                          int                     end)
{
  const Instance *inst;

  g_return_val_if_fail (self != NULL, 0);

  inst = find_path (self, base, end);
  if (inst == NULL)
    return 0;
  if (inst->klass->joint_path->get_n_configurations == NULL)
    return 1;
  return MAX (inst->klass->joint_path->get_n_configurations (inst->instance, base, end), 1);
}

const char *
km_body_handler_set_get_configuration_name (const KmBodyHandlerSet *self,
                                            int                     base,
                                            int                     end,
                                            guint                   index)
{
  const Instance *inst;

  g_return_val_if_fail (self != NULL, NULL);

  inst = find_path (self, base, end);
  if (inst == NULL || index >= km_body_handler_set_get_n_configurations (self, base, end) ||
      inst->klass->joint_path->get_configuration_name == NULL)
    return NULL;
  return inst->klass->joint_path->get_configuration_name (inst->instance, base, end, index);
}

int
km_body_handler_set_get_configuration (const KmBodyHandlerSet *self,
                                       int                     base,
                                       int                     end,
                                       const double           *q)
{
  const Instance *inst;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (q != NULL, -1);

  inst = find_path (self, base, end);
  if (inst == NULL || inst->klass->joint_path->get_configuration == NULL)
    return -1;
  return inst->klass->joint_path->get_configuration (inst->instance, base, end, q);
}

/* A handler's IK answer that Kinema drops (non-finite values) is said once per handler,
 * at debug level (G_MESSAGES_DEBUG=kinema-body-handler): the solve goes on numerically. */
static void
note_bad_answer (const KmBodyHandlerClass *klass)
{
  static GHashTable *noted;   /* classes said, never freed */
  gboolean first;

  G_LOCK (modules);
  if (noted == NULL)
    noted = g_hash_table_new (NULL, NULL);
  first = g_hash_table_add (noted, (gpointer) klass);
  G_UNLOCK (modules);
  if (first)
    g_debug ("body handler %s gave a non-finite IK answer; Kinema drops such answers and "
             "solves numerically (said once)", klass->name);
}

int
km_body_handler_set_solve_path (const KmBodyHandlerSet *self,
                                int                     base,
                                int                     end,
                                const KmTransform      *root_pose,
                                const KmTransform      *target,
                                int                     configuration,
                                double                 *q)
{
  const Instance *inst;
  KmSkeleton *skel;
  KmTransform frame, frame_inv, local;
  double pos[3], rot[9];
  guint n_dof;
  int result;
  g_autofree double *work = NULL;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (target != NULL, -1);
  g_return_val_if_fail (q != NULL, -1);

  inst = find_path (self, base, end);
  if (inst == NULL)
    return -1;
  skel = self->view->skeleton;
  if (root_pose != NULL)
    frame = *root_pose;
  else
    km_transform_identity (&frame);
  if (base >= 0)
    {
      g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skel));

      km_skeleton_forward_kinematics (skel, q, root_pose, world);
      frame = world[base];
    }
  km_transform_inverse (&frame, &frame_inv);
  km_transform_mul (&frame_inv, target, &local);
  pos[0] = local.pos.x;
  pos[1] = local.pos.y;
  pos[2] = local.pos.z;
  for (guint r = 0; r < 3; r++)
    for (guint c = 0; c < 3; c++)
      rot[r * 3 + c] = local.rot.m[r][c];

  /* The handler writes into a copy: a failed or non-finite answer leaves q untouched. */
  n_dof = km_skeleton_get_n_dof (skel);
  work = g_memdup2 (q, MAX (n_dof, 1) * sizeof (double));
  result = inst->klass->joint_path->solve (inst->instance, base, end, pos, rot,
                                           configuration, work);
  if (result < 0)
    return -1;
  for (guint d = 0; d < n_dof; d++)
    if (!isfinite (work[d]))
      {
        note_bad_answer (inst->klass);
        return -1;
      }
  memcpy (q, work, n_dof * sizeof (double));
  return result;
}

KmBodyHandlerIkHook *
km_body_handler_ik_hook_new (KmBodyHandlerSet *set,
                             int               configuration)
{
  KmBodyHandlerIkHook *hook;

  g_return_val_if_fail (set != NULL, NULL);

  hook = g_new0 (KmBodyHandlerIkHook, 1);
  hook->set = km_body_handler_set_ref (set);
  hook->configuration = configuration;
  return hook;
}

void
km_body_handler_ik_hook_free (KmBodyHandlerIkHook *hook)
{
  if (hook == NULL)
    return;
  km_body_handler_set_unref (hook->set);
  g_free (hook);
}

/* The step a linked joint's derivative is probed with (rad or m). */
#define LINK_PROBE_STEP 1e-5

/* Whether a handler may link @j in the solver's terms: a 1-DOF revolute or prismatic
 * joint that neither follows nor leads a link the model itself declares (a URDF mimic). */
static gboolean
linkable_joint (const KmSkeleton *skel,
                guint             j)
{
  const KmJoint *joints = km_skeleton_get_joints (skel);
  guint n = km_skeleton_get_n_joints (skel);

  if ((joints[j].type != KM_JOINT_REVOLUTE && joints[j].type != KM_JOINT_PRISMATIC) ||
      joints[j].n_dof != 1 || joints[j].dof_index < 0 || joints[j].mimic >= 0)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (joints[i].mimic == (int) j)
      return FALSE;
  return TRUE;
}

/* How DOF @d's re-synced values answer a move of DOF @m from @q0 (synced): @dq holds, for
 * every DOF, the derivative of its re-synced value by q[@m], by central differences (one
 * sided at a limit). @probe is a clone: the caller's set and values are never touched. */
static void
probe_link (KmBodyHandlerSet *probe,
            const double     *q0,
            guint             m,
            double           *dq)
{
  guint n_dof = probe->view->view.n_dof;
  double lo = probe->view->lower[m], hi = probe->view->upper[m];
  double a = q0[m] - LINK_PROBE_STEP, b = q0[m] + LINK_PROBE_STEP;
  g_autofree double *qa = g_memdup2 (q0, MAX (n_dof, 1) * sizeof (double));
  g_autofree double *qb = g_memdup2 (q0, MAX (n_dof, 1) * sizeof (double));

  if (a < lo)
    a = q0[m];
  if (b > hi)
    b = q0[m];
  qa[m] = a;
  qb[m] = b;
  km_body_handler_set_apply_linked (probe, -1, 0.0, qa);
  km_body_handler_set_apply_linked (probe, -1, 0.0, qb);
  for (guint d = 0; d < n_dof; d++)
    dq[d] = b > a ? (qb[d] - qa[d]) / (b - a) : 0.0;
}

/*
 * The problem's skeleton with the links of @probe's handlers as the solver's own linked
 * (mimic) joints, q_f = ratio · q_m + offset, so that IK varies a master that drives a
 * linked joint on the chain (ClosedLinkSample's J3 follows J0, off J3's chain) and folds a
 * follower into its master on the chain (J1 = -J0) rather than moving it alone, which the
 * re-sync would then undo. The handlers give values, not links: a re-sync (master -1) of
 * the seed, moved a little at one joint, tells which joints it keeps (the masters) and
 * which it sets (the followers), and how much each follower moves with each master (the
 * ratio, linearised at the seed; the re-sync after the solve makes the coupling exact).
 * A follower driven by more than one master, or not at all, stays a joint of its own.
 * NULL when no linked joint is on the problem's path (then nothing changes for the
 * solver).
 */
static KmSkeleton *
skeleton_with_links (KmBodyHandlerSet  *probe,
                     const KmIkProblem *problem)
{
  KmSkeleton *skel = probe->view->skeleton;
  const KmJoint *joints = km_skeleton_get_joints (skel);
  guint n_joints = km_skeleton_get_n_joints (skel), n_dof = probe->view->view.n_dof;
  g_autofree double *q0 = NULL;
  g_autofree double *dq = NULL;
  g_autofree int *master = NULL;
  g_autofree double *ratio = NULL;
  g_autofree gboolean *linked = NULL;
  g_autofree gboolean *follows = NULL;
  KmSkeleton *result;
  gboolean on_path = FALSE;

  if (!km_body_handler_set_has_linked_joints (probe) || problem->effector < 0 ||
      (guint) problem->effector >= n_joints || problem->n_dof != n_dof)
    return NULL;
  linked = g_new0 (gboolean, n_joints);
  for (guint j = 0; j < n_joints; j++)
    linked[j] = km_body_handler_set_is_linked_joint (probe, (int) j) && linkable_joint (skel, j);
  for (int j = problem->effector; j >= 0 && j != problem->base; j = joints[j].parent)
    on_path = on_path || linked[j];
  if (!on_path)
    return NULL;

  q0 = g_memdup2 (problem->seed, MAX (n_dof, 1) * sizeof (double));
  km_body_handler_set_apply_linked (probe, -1, 0.0, q0);
  dq = g_new (double, MAX (n_dof, 1));
  follows = g_new0 (gboolean, n_joints);
  for (guint j = 0; j < n_joints; j++)
    if (linked[j])
      {
        int d = joints[j].dof_index;

        /* A joint the re-sync sets does not keep its own move. */
        probe_link (probe, q0, (guint) d, dq);
        follows[j] = fabs (dq[d] - 1.0) > 0.5;
      }
  master = g_new (int, n_joints);
  ratio = g_new0 (double, n_joints);
  for (guint j = 0; j < n_joints; j++)
    master[j] = follows[j] ? -1 : -2;   /* -2: no follower; -3: more than one master */
  for (guint m = 0; m < n_joints; m++)
    {
      if (!linked[m] || follows[m])
        continue;
      probe_link (probe, q0, (guint) joints[m].dof_index, dq);
      for (guint f = 0; f < n_joints; f++)
        {
          double r = follows[f] ? dq[joints[f].dof_index] : 0.0;

          if (!isfinite (r) || fabs (r) < 1e-9)
            continue;
          master[f] = master[f] == -1 ? (int) m : -3;
          ratio[f] = r;
        }
    }

  result = km_skeleton_ref (skel);
  for (guint f = 0; f < n_joints; f++)
    {
      int m = master[f];
      double offset;
      KmSkeleton *next;

      if (m < 0)
        continue;
      offset = q0[joints[f].dof_index] - ratio[f] * q0[joints[m].dof_index];
      next = km_skeleton_edit_set_mimic (result, f, m, ratio[f], offset, NULL);
      /* One the skeleton cannot take (its limits) stays a joint of its own. */
      if (next == NULL)
        continue;
      km_skeleton_unref (result);
      result = next;
    }
  if (result == skel || km_skeleton_get_n_dof (result) != n_dof)
    {
      km_skeleton_unref (result);
      return NULL;
    }
  return result;
}

/**
 * km_body_handler_ik_hook_install:
 *
 * Also, when a joint the handlers link is on the problem's path, the problem's skeleton
 * becomes a copy of it with those links as linked (mimic) joints (see
 * skeleton_with_links()): the solver then moves the masters that drive them, off the
 * path too, as it does for a URDF's mimic joints. That is independent of the return value,
 * which tells only of the analytic IK. The probing runs on a clone of the hook's set and a
 * copy of the seed: nothing the caller shows is touched.
 */
gboolean
km_body_handler_ik_hook_install (KmBodyHandlerIkHook *hook,
                                 KmIkProblem         *problem)
{
  g_autoptr(KmBodyHandlerSet) probe = NULL;
  KmSkeleton *with_links;
  gboolean analytic;

  g_return_val_if_fail (hook != NULL, FALSE);
  g_return_val_if_fail (problem != NULL, FALSE);

  if (problem->skeleton != hook->set->view->skeleton)
    return FALSE;
  analytic = km_body_handler_set_covers_path (hook->set, problem->base, problem->effector);
  if (analytic)
    {
      problem->analytic = km_body_handler_ik_analytic;
      problem->analytic_data = hook;
    }
  if (km_body_handler_set_has_linked_joints (hook->set))
    {
      probe = km_body_handler_set_clone (hook->set);
      with_links = skeleton_with_links (probe, problem);
      if (with_links != NULL)
        {
          km_skeleton_unref (problem->skeleton);
          problem->skeleton = with_links;
        }
    }
  return analytic;
}

/**
 * km_body_handler_ik_analytic:
 * @hook: a #KmBodyHandlerIkHook
 *
 * A #KmIkAnalyticFunc. A continuous problem (a trajectory frame) always takes the
 * configuration nearest to the seed; otherwise the hook's configuration.
 */
gboolean
km_body_handler_ik_analytic (const KmIkProblem *problem,
                             const KmTransform *target,
                             double            *q,
                             gpointer           hook)
{
  const KmBodyHandlerIkHook *h = hook;
  int configuration;

  g_return_val_if_fail (problem != NULL && target != NULL && q != NULL && h != NULL, FALSE);

  configuration = problem->continuous ? KM_BODY_HANDLER_CONFIGURATION_NEAREST
                                      : h->configuration;
  return km_body_handler_set_solve_path (h->set, problem->base, problem->effector,
                                         &problem->root_pose, target, configuration, q) >= 0;
}

/* Linked joints --------------------------------------------------------------------- */

gboolean
km_body_handler_set_has_linked_joints (const KmBodyHandlerSet *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; i < self->n_instances; i++)
    if (self->instances[i].klass->linked_joints != NULL)
      return TRUE;
  return FALSE;
}

gboolean
km_body_handler_set_is_linked_joint (const KmBodyHandlerSet *self,
                                     int                     joint)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (joint < 0 || (guint) joint >= self->view->view.n_joints)
    return FALSE;
  for (guint i = 0; i < self->n_instances; i++)
    {
      const Instance *inst = &self->instances[i];

      if (inst->klass->linked_joints != NULL &&
          inst->klass->linked_joints->is_linked (inst->instance, joint))
        return TRUE;
    }
  return FALSE;
}

/**
 * km_body_handler_set_apply_linked:
 *
 * The handlers write into a copy of @q; what comes back is checked as IK answers are: a
 * non-finite value keeps the value the DOF had before the update, a finite one is clamped
 * into the DOF's limits. So a misbehaving handler can neither put NaN into the body (and
 * a saved project) nor store a value outside the limits the joint panel shows.
 */
gboolean
km_body_handler_set_apply_linked (KmBodyHandlerSet *self,
                                  int               joint,
                                  double            value,
                                  double           *q)
{
  gboolean changed = FALSE;
  guint n_dof;
  g_autofree double *work = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (q != NULL, FALSE);
  g_return_val_if_fail (joint >= -1 && joint < (int) self->view->view.n_joints, FALSE);

  if (joint >= 0)
    {
      const KmBodyHandlerJoint *j = &self->view->joints[joint];

      if (j->dof_index < 0 || !isfinite (value))
        return FALSE;
      q[j->dof_index] = value;
    }
  n_dof = self->view->view.n_dof;
  work = g_memdup2 (q, MAX (n_dof, 1) * sizeof (double));
  for (guint i = 0; i < self->n_instances; i++)
    {
      Instance *inst = &self->instances[i];
      const KmBodyHandlerLinkedJointsIface *iface = inst->klass->linked_joints;

      if (iface == NULL)
        continue;
      if (joint >= 0 && !iface->is_linked (inst->instance, joint))
        continue;
      iface->update (inst->instance, joint, value, work);
    }
  for (guint d = 0; d < n_dof; d++)
    {
      double v = work[d];

      /* Only what a handler wrote is checked: a value it left alone (a project's value
       * past a limit, kept with a warning) stays as it is. */
      if (!isfinite (v) || v == q[d])
        continue;
      v = CLAMP (v, self->view->lower[d], self->view->upper[d]);
      if (v != q[d])
        {
          q[d] = v;
          changed = TRUE;
        }
    }
  return changed;
}

/* The frames of [@first, @first + @n) that a re-sync of @animation covers, @n clipped to
 * the animation; FALSE when there is nothing to re-sync (no linked joints, another
 * skeleton's animation, a range past the end). */
static gboolean
linked_frame_range (const KmBodyHandlerSet *self,
                    const KmAnimation      *animation,
                    guint                   first,
                    guint                  *n)
{
  guint n_frames;

  if (!km_body_handler_set_has_linked_joints (self) ||
      km_animation_get_n_dof (animation) != self->view->view.n_dof)
    return FALSE;
  n_frames = km_animation_get_n_frames (animation);
  if (first >= n_frames)
    return FALSE;
  *n = MIN (*n, n_frames - first);
  return TRUE;
}

/* The per-frame step of a re-sync: frame @f's values, copied into @row (n_dof values),
 * re-synced from the linked joints' masters and stored back when they changed. Returns
 * whether they did; @row then holds the frame's new values. */
static gboolean
resync_frame (KmBodyHandlerSet *self,
              KmAnimation      *animation,
              guint             f,
              double           *row)
{
  memcpy (row, km_animation_get_frame (animation, f),
          self->view->view.n_dof * sizeof (double));
  if (!km_body_handler_set_apply_linked (self, -1, 0.0, row))
    return FALSE;
  km_animation_set_frame (animation, f, row);
  return TRUE;
}

/**
 * km_body_handler_set_apply_linked_frames:
 * @self: this thread's set (km_body_handler_set_clone() on a worker)
 * @animation: an animation of @self's skeleton (as many DOFs)
 * @first: the first frame
 * @n: how many frames (clipped to the animation)
 *
 * Re-syncs the linked joints of every frame in [@first, @first + @n) from the frame's
 * values (km_body_handler_set_apply_linked() with joint -1), as a 3-D drag does with its
 * answer: every solved frame keeps the coupling the body's handlers define. Residuals
 * stay those the solver measured: a solved motion's go through
 * km_body_handler_set_apply_linked_solved(), which measures them again.
 *
 * Returns: how many frames changed
 */
guint
km_body_handler_set_apply_linked_frames (KmBodyHandlerSet *self,
                                         KmAnimation      *animation,
                                         guint             first,
                                         guint             n)
{
  guint changed = 0;
  g_autofree double *row = NULL;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (animation != NULL, 0);

  if (!linked_frame_range (self, animation, first, &n))
    return 0;
  row = g_new (double, MAX (self->view->view.n_dof, 1));
  for (guint f = first; f < first + n; f++)
    if (resync_frame (self, animation, f, row))
      changed++;
  return changed;
}

/**
 * km_body_handler_set_apply_linked_solved:
 * @self: this thread's set (km_body_handler_set_clone() on a worker)
 * @problem: what the motion was solved for (skeleton, effector, root pose), as for
 *   km_ik_measure_track()
 * @track: the targets it was solved for
 * @animation: the solved motion, with the solver's residuals
 * @first: the first frame
 * @n: how many frames (clipped to the animation)
 *
 * km_body_handler_set_apply_linked_frames(), and then the residuals are those of the pose
 * the frame now holds: each changed frame that has a residual is measured again by forward
 * kinematics against its target, as km_ik_measure_track() measures it (the solver's
 * values were of the pose before the linked joints moved, which may put the effector
 * elsewhere). The missed keyframes in the range (km_animation_get_missed_keys()) take their
 * frame's residuals (also where no frame changed in this call: the editor's frames were
 * re-synced as they came, before the keyframes were checked); one the re-synced pose meets
 * within the tolerances is no longer missed. Unchanged frames cost one copy each; nothing
 * is measured without linked joints.
 *
 * Returns: how many frames changed
 */
guint
km_body_handler_set_apply_linked_solved (KmBodyHandlerSet    *self,
                                         const KmIkProblem   *problem,
                                         const KmTargetTrack *track,
                                         KmAnimation         *animation,
                                         guint                first,
                                         guint                n)
{
  g_autoptr(KmIkProblem) aimed = NULL;
  g_autofree double *row = NULL;
  const KmAnimationKeyMiss *missed;
  guint n_dof, n_frames, n_measured, n_missed, changed = 0;
  gboolean position_only;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (problem != NULL && problem->skeleton != NULL, 0);
  g_return_val_if_fail (track != NULL, 0);
  g_return_val_if_fail (animation != NULL, 0);

  n_dof = self->view->view.n_dof;
  if (problem->n_dof != n_dof || !linked_frame_range (self, animation, first, &n))
    return 0;
  n_frames = km_animation_get_n_frames (animation);
  aimed = km_ik_problem_copy (problem);
  km_ik_problem_use_track (aimed, track);
  position_only = km_target_track_get_position_only (track);
  n_measured = MIN (n_frames, km_target_track_get_last_frame (track) + 1);
  row = g_new (double, MAX (n_dof, 1));
  for (guint f = first; f < first + n; f++)
    {
      double pos_err, rot_err;
      KmVec3 pos;
      KmQuat rot;

      if (!resync_frame (self, animation, f, row))
        continue;
      changed++;
      /* A frame the solve left without a residual (a seed row) stays without one. */
      if (f >= n_measured || !km_animation_get_residual (animation, f, NULL, NULL))
        continue;
      km_target_track_sample (track, f, &pos, &rot);
      km_transform_from_pos_quat (pos, rot, &aimed->target);
      km_ik_measure (aimed, row, &pos_err, &rot_err);
      if (position_only)
        rot_err = 0.0;  /* as a solve reports it */
      km_animation_set_residual (animation, f, pos_err, rot_err);
    }

  /* Also when no frame changed here: the editor re-syncs (and measures) the frames as
   * they stream in, and the missed keyframes, checked after the last, come with the end. */
  missed = km_animation_get_missed_keys (animation, &n_missed);
  if (n_missed > 0)
    {
      g_autofree KmAnimationKeyMiss *kept = g_new (KmAnimationKeyMiss, n_missed);
      guint n_kept = 0, n_unchecked = km_animation_get_unchecked_keys (animation);
      gboolean orientation = aimed->orientation_weight > 0;

      for (guint i = 0; i < n_missed; i++)
        {
          KmAnimationKeyMiss key = missed[i];

          if (key.frame >= first && key.frame < first + n
              && km_animation_get_residual (animation, key.frame, &key.pos_err, &key.rot_err)
              && !km_ik_residual_missed (key.pos_err, key.rot_err, orientation))
            continue;  /* met now */
          kept[n_kept++] = key;
        }
      km_animation_set_missed_keys (animation, kept, n_kept);
      km_animation_set_unchecked_keys (animation, n_unchecked);
    }
  return changed;
}

/* Presentation ---------------------------------------------------------------------- */

static const Instance *
find_presenter (const KmBodyHandlerSet *self,
                int                     joint)
{
  if (joint < 0 || (guint) joint >= self->view->view.n_joints)
    return NULL;
  for (guint i = 0; i < self->n_instances; i++)
    {
      const Instance *inst = &self->instances[i];

      if (inst->klass->presentation != NULL &&
          inst->klass->presentation->presents (inst->instance, joint))
        return inst;
    }
  return NULL;
}

/**
 * km_body_handler_set_get_presentation:
 * @out: (out caller-allocates): how the joint's first DOF is shown
 *
 * Returns: %TRUE when a handler presents the joint, %FALSE for the defaults
 */
gboolean
km_body_handler_set_get_presentation (const KmBodyHandlerSet *self,
                                      int                     joint,
                                      KmJointPresentation    *out)
{
  const Instance *inst;
  const KmBodyHandlerJoint *j;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (joint >= 0 && joint < (int) self->view->view.n_joints, FALSE);

  j = &self->view->joints[joint];
  inst = find_presenter (self, joint);
  if (inst != NULL)
    {
      const KmBodyHandlerPresentationIface *p = inst->klass->presentation;
      const char *label = p->get_unit_label (inst->instance, joint);
      double span = j->type == KM_BODY_HANDLER_JOINT_PRISMATIC ? 10.0 : 2.0 * G_PI;
      double a = p->to_shown (inst->instance, joint, isfinite (j->lower) ? j->lower : -span);
      double b = p->to_shown (inst->instance, joint, isfinite (j->upper) ? j->upper : span);

      out->kind = p->get_unit_kind != NULL ? p->get_unit_kind (inst->instance, joint)
                                           : KM_BODY_HANDLER_UNIT_FIXED;
      if (out->kind < KM_BODY_HANDLER_UNIT_ANGLE || out->kind > KM_BODY_HANDLER_UNIT_FIXED)
        out->kind = KM_BODY_HANDLER_UNIT_FIXED;
      out->unit_label = label != NULL ? label : "";
      if (p->get_shown_range != NULL)
        p->get_shown_range (inst->instance, joint, &out->shown_min, &out->shown_max);
      else
        {
          out->shown_min = MIN (a, b);
          out->shown_max = MAX (a, b);
        }
      return TRUE;
    }
  if (j->type == KM_BODY_HANDLER_JOINT_PRISMATIC)
    {
      out->kind = KM_BODY_HANDLER_UNIT_LENGTH;
      out->unit_label = "m";
      out->shown_min = isfinite (j->lower) ? j->lower : -10.0;
      out->shown_max = isfinite (j->upper) ? j->upper : 10.0;
    }
  else if (j->type == KM_BODY_HANDLER_JOINT_REVOLUTE || j->type == KM_BODY_HANDLER_JOINT_SPHERICAL)
    {
      out->kind = KM_BODY_HANDLER_UNIT_ANGLE;
      out->unit_label = "deg";
      out->shown_min = isfinite (j->lower) ? km_rad_to_deg (j->lower) : -360.0;
      out->shown_max = isfinite (j->upper) ? km_rad_to_deg (j->upper) : 360.0;
    }
  else
    {
      out->kind = KM_BODY_HANDLER_UNIT_FIXED;
      out->unit_label = "";
      out->shown_min = out->shown_max = 0.0;
    }
  return FALSE;
}

double
km_body_handler_set_to_shown (const KmBodyHandlerSet *self,
                              int                     joint,
                              double                  value)
{
  const Instance *inst;
  int type;

  g_return_val_if_fail (self != NULL, value);
  g_return_val_if_fail (joint >= 0 && joint < (int) self->view->view.n_joints, value);

  inst = find_presenter (self, joint);
  if (inst != NULL)
    return inst->klass->presentation->to_shown (inst->instance, joint, value);
  type = self->view->joints[joint].type;
  if (type == KM_BODY_HANDLER_JOINT_REVOLUTE || type == KM_BODY_HANDLER_JOINT_SPHERICAL)
    return km_rad_to_deg (value);
  return value;
}

gboolean
km_body_handler_set_from_shown (const KmBodyHandlerSet *self,
                                int                     joint,
                                double                  shown,
                                double                 *value)
{
  const Instance *inst;
  int type;
  double v;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);
  g_return_val_if_fail (joint >= 0 && joint < (int) self->view->view.n_joints, FALSE);

  if (!isfinite (shown))
    return FALSE;
  inst = find_presenter (self, joint);
  if (inst != NULL)
    {
      if (!inst->klass->presentation->from_shown (inst->instance, joint, shown, &v) ||
          !isfinite (v))
        return FALSE;
      *value = v;
      return TRUE;
    }
  type = self->view->joints[joint].type;
  *value = (type == KM_BODY_HANDLER_JOINT_REVOLUTE || type == KM_BODY_HANDLER_JOINT_SPHERICAL)
             ? km_deg_to_rad (shown) : shown;
  return TRUE;
}
