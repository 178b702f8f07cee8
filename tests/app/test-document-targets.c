/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <gtk/gtk.h>

#include "km-document.h"
#include "km-ik-targets-item.h"
#include "km-target-track.h"
#include "km-targets-json.h"
#include "km-test-tmp.h"

#include "test-app-util.h"

/*
 * Targets files opened onto a body that has targets: the body keeps one IK Targets item,
 * that of the file opened last, undoably (roboticist review 10: each open piled up another
 * item, and which one the motion was solved from was unclear); and a motion written before
 * the solve of its body's targets finished is not measured against them once recovered.
 */

static guint
count_targets_items (KmItem *body)
{
  guint n = 0;

  for (guint i = 0; i < km_item_get_n_children (body); i++)
    if (KM_IS_IK_TARGETS_ITEM (km_item_get_child (body, i)))
      n++;
  return n;
}

static void
write_track (const char          *path,
             const KmTargetTrack *track)
{
  g_autofree char *text = km_targets_json_to_string (track);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

static void
import_path (KmDocument *document,
             const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_import_file (document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 60000));
}

/* The targets item the body is solved from holds @n_keys keyframes read from @path, and
 * it is the body's only one. */
static void
assert_targets_from (KmDocument *document,
                     const char *path,
                     guint       n_keys)
{
  KmItem *body = km_document_get_body_item (document);
  KmItem *item = km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM);
  g_autofree char *name = g_path_get_basename (path);

  g_assert_cmpuint (count_targets_items (body), ==, 1);
  g_assert_nonnull (item);
  g_assert_cmpstr (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)), ==, path);
  g_assert_cmpstr (km_item_get_name (item), ==, name);
  g_assert_true (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item))
                 == km_document_get_targets (document));
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (document)), ==,
                    n_keys);
}

/* @track without its middle keyframe: a motion solved from @track passes through a point
 * the track without it does not ask for. */
static KmTargetTrack *
without_middle_key (KmTargetTrack *track)
{
  guint n = km_target_track_get_n_keyframes (track);

  return km_target_track_without_keyframe (track,
                                           km_target_track_get_keyframe (track, n / 2)->frame);
}

static void
test_open_targets_twice (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-open-targets-XXXXXX");
  g_autofree char *first = g_build_filename (dir, "first.json", NULL);
  g_autofree char *second = g_build_filename (dir, "second.json", NULL);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(KmTargetTrack) fewer = NULL;
  g_autoptr(GError) error = NULL;
  KmTargetTrack *example;
  guint n_keys;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 60000));
  example = km_document_get_targets (document);
  n_keys = km_target_track_get_n_keyframes (example);
  g_assert_cmpuint (n_keys, >=, 3);
  fewer = without_middle_key (example);
  write_track (first, example);
  write_track (second, fewer);

  import_path (document, first);
  assert_targets_from (document, first, n_keys);
  import_path (document, second);
  assert_targets_from (document, second, n_keys - 1);

  /* Each open is a step: undone, the first file's targets are back, in the same item. */
  g_assert_true (km_document_undo (document));
  g_assert_true (test_app_wait_idle_solve (document, 60000));
  assert_targets_from (document, first, n_keys);
  g_assert_true (km_document_redo (document));
  g_assert_true (test_app_wait_idle_solve (document, 60000));
  assert_targets_from (document, second, n_keys - 1);

  km_test_remove_tree (dir);
}

/* `kinema model targets.json` with a model that defines targets (a scene's <ik>): the
 * file's replace the first of them, and the pair opens as the model alone, unmodified and
 * with nothing to undo. */
static void
test_open_targets_with_model (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-open-targets-XXXXXX");
  g_autofree char *targets = g_build_filename (dir, "targets.json", NULL);
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                  "arm2_mm_deg.xml", NULL);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(KmTargetTrack) more = NULL;
  KmTargetKeyframe key;
  KmItem *body;
  guint n_items, n_keys;

  import_path (document, model);
  body = km_document_get_body_item (document);
  n_items = count_targets_items (body);
  g_assert_cmpuint (n_items, >=, 1);
  n_keys = km_target_track_get_n_keyframes (km_document_get_targets (document));
  /* (the first keyframe again, later) */
  key = *km_target_track_get_keyframe (km_document_get_targets (document), 0);
  key.frame = km_target_track_get_last_frame (km_document_get_targets (document)) + 10;
  more = km_target_track_with_keyframe (km_document_get_targets (document), &key);
  write_track (targets, more);

  import_path (document, targets);
  g_assert_cmpuint (count_targets_items (body), ==, n_items);
  g_assert_cmpstr (km_ik_targets_item_get_file (
                     KM_IK_TARGETS_ITEM (km_item_find_child_by_type (body,
                                                                     KM_TYPE_IK_TARGETS_ITEM))),
                   ==, targets);
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (document)), ==,
                    n_keys + 1);
  g_assert_false (km_document_get_modified (document));
  g_assert_false (km_document_can_undo (document));

  km_test_remove_tree (dir);
}

typedef struct
{
  gboolean done;
  gboolean ok;
  GError  *error;
} Result;

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Result *r = user_data;

  r->ok = test_app_document_finish (KM_DOCUMENT (source), result, &r->error);
  r->done = TRUE;
}

/* The recovered motion was measured, or said not to be its targets' solve. */
static gboolean
measured_or_said (gpointer data)
{
  KmDocument *document = data;
  KmAnimation *animation = km_document_get_animation (document);

  return (animation != NULL && km_animation_has_residuals (animation))
         || test_app_has_message (document, G_LOG_LEVEL_WARNING, "not the solve", NULL);
}

/* Autosaved after targets were opened onto the body and before their solve finished, the
 * motion is the one solved from the targets of before: recovered, it is not measured
 * against the targets it was not solved from (which it misses: the reviewer saw its frames
 * marked as missing their target), and the user hears that it is not their solve. */
static void
test_recovered_motion_of_other_targets (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-open-targets-XXXXXX");
  g_autofree char *second = g_build_filename (dir, "second.json", NULL);
  g_autofree char *autosave = g_build_filename (dir, "autosave.cnoid", NULL);
  g_autoptr(GFile) autosave_file = g_file_new_for_path (autosave);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(KmDocument) recovered = km_document_new ();
  g_autoptr(KmTargetTrack) fewer = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  KmAnimation *before;
  Result written = { 0 }, read = { 0 };

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 60000));
  before = km_document_get_animation (document);
  g_assert_nonnull (before);
  fewer = without_middle_key (km_document_get_targets (document));
  write_track (second, fewer);

  file = g_file_new_for_path (second);
  g_assert_true (km_document_import_file (document, file, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_get_solving (document));
  km_document_cancel_solve (document);
  g_assert_true (test_app_wait_idle_solve (document, 60000));
  g_assert_true (km_document_get_animation (document) == before);

  km_document_write_autosave_async (document, autosave, NULL, done_cb, &written);
  g_assert_true (test_app_wait_flag (&written.done, 20000));
  g_assert_no_error (written.error);
  g_assert_true (written.ok);

  km_document_recover_async (recovered, autosave_file, NULL, done_cb, &read);
  g_assert_true (test_app_wait_flag (&read.done, 20000));
  g_assert_no_error (read.error);
  g_assert_true (read.ok);
  g_assert_nonnull (km_document_get_animation (recovered));
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (recovered)), ==,
                    km_target_track_get_n_keyframes (fewer));
  g_assert_true (test_app_wait_until (measured_or_said, recovered, 20000));
  g_assert_cmpuint (test_app_count_messages (recovered, G_LOG_LEVEL_WARNING,
                                             "reach", "target", NULL), ==, 0);
  g_assert_cmpuint (test_app_count_messages (recovered, G_LOG_LEVEL_WARNING,
                                             "not the solve", NULL), ==, 1);
  g_assert_false (km_animation_has_residuals (km_document_get_animation (recovered)));

  /* Solved, the motion is theirs, with its residuals. */
  km_document_solve (recovered);
  g_assert_true (km_document_get_solving (recovered));
  g_assert_true (test_app_wait_idle_solve (recovered, 60000));
  g_assert_true (km_animation_has_residuals (km_document_get_animation (recovered)));

  km_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/kinema/DocumentTargets/open-twice", test_open_targets_twice);
  g_test_add_func ("/kinema/DocumentTargets/open-with-model", test_open_targets_with_model);
  g_test_add_func ("/kinema/DocumentTargets/recovered-motion-of-other-targets",
                   test_recovered_motion_of_other_targets);

  return g_test_run ();
}
