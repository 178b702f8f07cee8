/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the Scenebuilder XML loader (km-scenebuilder.h). The input's path is
 * tests/data/scenebuilder/fuzz.xml, so that import/module references the seeds make reach
 * the real fixtures (and "fuzz.xml" itself is not there: a self-import fails cleanly).
 *
 * Besides crashes it checks what the loader promises (specs/scenebuilder.md 1.7): every
 * warning and error has a FILE:LINE:COLUMN location; a well-formed scene fails only for
 * the reasons the header lists (never because the skeleton builder refused what the
 * parser let through); and a loaded model is finite: its initial configuration, the
 * poses forward kinematics gives at it, and its IK targets.
 */

#include "config.h"

#include <math.h>

#include "fuzz-common.h"
#include "km-error.h"
#include "km-scenebuilder.h"
#include "km-skeleton-json.h"
#include "km-skeleton.h"

static char *fuzz_path;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  fuzz_path = g_build_filename (fuzz_data_dir (), "scenebuilder", "fuzz.xml", NULL);
  return 0;
}

/* "FILE:LINE:COLUMN: …" with LINE and COLUMN at least 1 (the file names here have no
 * colon); a problem with a whole imported file (too large) is located by the
 * "included from FILE:LINE:COLUMN" that follows it. */
static void
assert_located (const char *message)
{
  const char *end = strstr (message, ": ");
  g_autofree char *prefix = NULL;
  g_auto(GStrv) fields = NULL;
  guint n;

  if (strstr (message, "\nincluded from ") != NULL)
    return;
  if (end == NULL)
    g_error ("no location: %s", message);
  prefix = g_strndup (message, end - message);
  fields = g_strsplit (prefix, ":", -1);
  n = g_strv_length (fields);
  if (n < 3 || g_ascii_strtoull (fields[n - 2], NULL, 10) < 1 ||
      g_ascii_strtoull (fields[n - 1], NULL, 10) < 1)
    g_error ("no location: %s", message);
}

static void
warning_cb (const char *message,
            gpointer    user_data)
{
  assert_located (message);
}

static void
assert_finite_model (const KmScenebuilderModel *model)
{
  guint n = km_skeleton_get_n_joints (model->skeleton);
  guint n_dof = km_skeleton_get_n_dof (model->skeleton);
  g_autofree KmTransform *world = g_new (KmTransform, n);

  for (guint d = 0; d < n_dof; d++)
    g_assert_true (isfinite (model->initial_q[d]));
  km_skeleton_forward_kinematics (model->skeleton, model->initial_q, NULL, world);
  for (guint j = 0; j < n; j++)
    {
      g_assert_true (km_vec3_is_finite (world[j].pos));
      for (guint r = 0; r < 3; r++)
        g_assert_true (km_vec3_is_finite (km_vec3 (world[j].rot.m[r][0], world[j].rot.m[r][1],
                                                   world[j].rot.m[r][2])));
    }
  for (guint i = 0; i < model->ik_targets->len; i++)
    {
      const KmScenebuilderIk *ik = g_ptr_array_index (model->ik_targets, i);

      g_assert_true (km_vec3_is_finite (ik->effector_target.pos));
      g_assert_true (km_vec3_is_finite (ik->target.pos));
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  KmScenebuilderModel *model;

  (void) km_scenebuilder_sniff ((const char *) data, size);
  km_parse_warnings_push (warning_cb, NULL);
  model = km_scenebuilder_load (fuzz_path, (const char *) data, size, &error);
  km_parse_warnings_pop ();
  g_assert ((model == NULL) != (error == NULL));
  if (error != NULL)
    {
      assert_located (error->message);
      /* 1.7: a well-formed scene fails only without a body or with an unknown document
       * element (or at a resource limit, or an XML error in an imported file). */
      if (error->code == KM_PARSE_ERROR_INVALID &&
          strstr (error->message, "the scene has no <body>") == NULL &&
          strstr (error->message, "expected a Scenebuilder scene") == NULL)
        g_error ("refused a well-formed scene: %s", error->message);
    }
  if (model != NULL)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      assert_finite_model (model);
      km_skeleton_json_describe (model->skeleton, out);
      km_scenebuilder_model_free (model);
    }
  return 0;
}
