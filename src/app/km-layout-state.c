/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-layout-state"

#include "config.h"

#include <math.h>

#include "km-layout-state.h"
#include "km-yaml.h"

#define DEFAULT_PLAYBACK_FRAME_RATE 60.0
/* A field of view outside this (radians) is no camera anyone meant. */
#define MIN_FOV 0.01
#define MAX_FOV 3.0

static const char * const is_current_keys[] = { "is_current", "isCurrent", NULL };
static const char * const fov_keys[] = { "field_of_view", "fieldOfView", NULL };
static const char * const ortho_height_keys[] = { "ortho_height", "orthoHeight", NULL };
static const char * const current_time_keys[] = { "current_time", "currentTime", NULL };
static const char * const min_time_keys[] = { "min_time", "minTime", NULL };
static const char * const max_time_keys[] = { "max_time", "maxTime", NULL };
static const char * const frame_rate_keys[] = { "frame_rate", "frameRate", NULL };
static const char * const playback_frame_rate_keys[] = {
  "playback_frame_rate", "playbackFrameRate", NULL
};
static const char * const speed_keys[] = { "playback_speed_ratio", "speedScale", NULL };

#define TARGET_DISTANCE_KEY "kinema_target_distance"
static const char * const target_distance_keys[] = { TARGET_DISTANCE_KEY, NULL };

static gboolean
scalar_is (const KmYamlNode *node,
           const char       *value)
{
  const char *s = node ? km_yaml_node_get_scalar (node, NULL) : NULL;

  return s != NULL && g_str_equal (s, value);
}

static gboolean
lookup_double (const KmYamlNode   *mapping,
               const char * const *keys,
               double             *out)
{
  KmYamlNode *node = km_yaml_mapping_lookup_any (mapping, keys);
  double value;

  if (node == NULL || !km_yaml_scalar_to_double (node, &value) || !isfinite (value))
    return FALSE;
  *out = value;
  return TRUE;
}

static gboolean
lookup_vec3 (const KmYamlNode *mapping,
             const char       *key,
             KmVec3           *out)
{
  KmYamlNode *node = km_yaml_mapping_lookup (mapping, key);
  double v[3];

  if (node == NULL || km_yaml_node_get_kind (node) != KM_YAML_SEQUENCE
      || km_yaml_node_get_length (node) != 3)
    return FALSE;
  for (guint i = 0; i < 3; i++)
    if (!km_yaml_scalar_to_double (km_yaml_sequence_get (node, i), &v[i]) || !isfinite (v[i]))
      return FALSE;
  *out = km_vec3 (v[0], v[1], v[2]);
  return TRUE;
}

/* Sets @value under the first of @keys (snake_case, camelCase) the mapping has, else under
 * the spelling of the file (@camel_case). */
static void
set_spelled (KmYamlNode         *mapping,
             const char * const *keys,
             gboolean            camel_case,
             KmYamlNode         *value)
{
  for (guint i = 0; keys[i] != NULL; i++)
    if (km_yaml_mapping_lookup (mapping, keys[i]) != NULL)
      {
        km_yaml_mapping_set (mapping, keys[i], value);
        return;
      }
  km_yaml_mapping_set (mapping, keys[camel_case && keys[1] != NULL ? 1 : 0], value);
}

/* Whether @mapping has the camelCase spelling of one of the key lists (older Choreonoid). */
static gboolean
has_camel_case (const KmYamlNode          *mapping,
                const char * const * const *lists)
{
  for (guint i = 0; lists[i] != NULL; i++)
    if (km_yaml_mapping_lookup (mapping, lists[i][1]) != NULL)
      return TRUE;
  return FALSE;
}

static const char * const * const camera_key_lists[] = {
  is_current_keys, fov_keys, ortho_height_keys, NULL
};
static const char * const * const time_bar_key_lists[] = {
  current_time_keys, min_time_keys, max_time_keys, frame_rate_keys, playback_frame_rate_keys,
  speed_keys, NULL
};

static void
remove_all (KmYamlNode         *mapping,
            const char * const *keys)
{
  for (guint i = 0; keys[i] != NULL; i++)
    km_yaml_mapping_remove (mapping, keys[i]);
}

/* "Perspective" for `camera: [ System, Perspective ]` or `camera: Perspective`, else NULL
 * (a camera of a body or of another kind). */
static const char *
system_camera_kind (const KmYamlNode *entry)
{
  KmYamlNode *camera = km_yaml_mapping_lookup (entry, "camera");
  KmYamlNode *kind = camera;

  if (camera == NULL)
    return NULL;
  if (km_yaml_node_get_kind (camera) == KM_YAML_SEQUENCE)
    {
      if (km_yaml_node_get_length (camera) != 2
          || !scalar_is (km_yaml_sequence_get (camera, 0), "System"))
        return NULL;
      kind = km_yaml_sequence_get (camera, 1);
    }
  if (scalar_is (kind, "Perspective"))
    return "Perspective";
  if (scalar_is (kind, "Orthographic"))
    return "Orthographic";
  return NULL;
}

static gboolean
is_current (const KmYamlNode *entry)
{
  KmYamlNode *node = km_yaml_mapping_lookup_any (entry, is_current_keys);
  gboolean value = FALSE;

  return node != NULL && km_yaml_scalar_to_bool (node, &value) && value;
}

/* The first SceneView's entry of the views sequence (its index in *index), or NULL. */
static KmYamlNode *
find_scene_view (const KmYamlNode *views,
                 guint            *index)
{
  for (guint i = 0; views != NULL && km_yaml_node_get_kind (views) == KM_YAML_SEQUENCE
                    && i < km_yaml_node_get_length (views); i++)
    {
      KmYamlNode *view = km_yaml_sequence_get (views, i);

      if (scalar_is (km_yaml_mapping_lookup (view, "class"), "SceneView"))
        {
          if (index != NULL)
            *index = i;
          return view;
        }
    }
  return NULL;
}

static KmYamlNode *
find_time_bar (const KmYamlNode *sections)
{
  KmYamlNode *toolbars = km_yaml_mapping_lookup (sections, "toolbars");
  KmYamlNode *bar = km_yaml_mapping_lookup (toolbars, "TimeBar");

  return bar != NULL && km_yaml_node_get_kind (bar) == KM_YAML_MAPPING ? bar : NULL;
}

/* Without Kinema's orbit distance: the point of the view axis nearest the world origin,
 * when it lies ahead of the eye. */
static double
distance_to_origin (KmVec3 eye,
                    KmVec3 direction)
{
  double length = km_vec3_length (direction);
  double distance = length > 0.0 ? -km_vec3_dot (eye, direction) / length : 0.0;

  return distance > 0.1 ? distance : MAX (km_vec3_length (eye), 1.0);
}

/**
 * km_layout_state_get_camera:
 * @camera: (inout): the camera to place; only what the file has is changed
 *
 * Reads the current camera of the project's first SceneView: its place (eye, direction),
 * its projection and field of view (as the file states it, the angle across the view's
 * shorter side), and an orthographic height (across the shorter side too) as a distance.
 *
 * Returns: whether the project has a usable camera (@camera is unchanged otherwise)
 */
gboolean
km_layout_state_get_camera (KmProject *project,
                            KmCamera  *camera)
{
  KmYamlNode *sections, *view, *cameras;
  KmYamlNode *placed = NULL, *perspective = NULL, *orthographic = NULL;
  gboolean ortho = FALSE;
  KmCamera result;
  KmVec3 eye, direction;
  double fov, height, distance;

  g_return_val_if_fail (KM_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (camera != NULL, FALSE);

  sections = km_project_get_sections (project);
  view = find_scene_view (km_yaml_mapping_lookup (sections, "views"), NULL);
  cameras = km_yaml_mapping_lookup (km_yaml_mapping_lookup (view, "state"), "cameras");
  if (cameras == NULL || km_yaml_node_get_kind (cameras) != KM_YAML_SEQUENCE)
    return FALSE;

  for (guint i = 0; i < km_yaml_node_get_length (cameras); i++)
    {
      KmYamlNode *entry = km_yaml_sequence_get (cameras, i);
      const char *kind = system_camera_kind (entry);

      if (kind == NULL)
        continue;
      if (g_str_equal (kind, "Perspective") && perspective == NULL)
        perspective = entry;
      else if (g_str_equal (kind, "Orthographic") && orthographic == NULL)
        orthographic = entry;
      if (is_current (entry))
        ortho = g_str_equal (kind, "Orthographic");
    }

  /* Choreonoid's system cameras share one place, written with the perspective one. */
  if (lookup_vec3 (ortho ? orthographic : perspective, "eye", &eye)
      && lookup_vec3 (ortho ? orthographic : perspective, "direction", &direction))
    placed = ortho ? orthographic : perspective;
  else if (lookup_vec3 (ortho ? perspective : orthographic, "eye", &eye)
           && lookup_vec3 (ortho ? perspective : orthographic, "direction", &direction))
    placed = ortho ? perspective : orthographic;
  if (placed == NULL)
    return FALSE;

  result = *camera;
  result.orthographic = ortho;
  if (perspective != NULL && lookup_double (perspective, fov_keys, &fov)
      && fov >= MIN_FOV && fov <= MAX_FOV)
    result.fov_y = fov;   /* as stated: the view's shape applies when it is drawn */

  if (!lookup_double (placed, target_distance_keys, &distance) || !(distance > 0.0))
    {
      if (ortho && lookup_double (orthographic, ortho_height_keys, &height) && height > 0.0)
        distance = height / (2.0 * tan (result.fov_y / 2.0));
      else
        distance = distance_to_origin (eye, direction);
    }

  if (!km_camera_look_from (&result, eye, direction, distance))
    return FALSE;
  *camera = result;
  return TRUE;
}

/* The sections to change: a copy of the project's (parsed trees are shared), or a new
 * mapping. */
static KmYamlNode *
copy_sections (KmProject *project)
{
  KmYamlNode *sections = km_project_get_sections (project);

  if (sections != NULL && km_yaml_node_get_kind (sections) == KM_YAML_MAPPING)
    return km_yaml_node_copy (sections);
  return km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
}

static KmYamlNode *
new_system_camera (const char *kind)
{
  KmYamlNode *entry = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  KmYamlNode *name = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

  km_yaml_sequence_append (name, km_yaml_node_new_scalar ("System", KM_YAML_STYLE_PLAIN));
  km_yaml_sequence_append (name, km_yaml_node_new_scalar (kind, KM_YAML_STYLE_PLAIN));
  km_yaml_mapping_append (entry, "camera", name);
  return entry;
}

static KmYamlNode *
new_vec3 (KmVec3 v)
{
  double values[3] = { v.x, v.y, v.z };

  return km_yaml_node_new_numbers (values, 3);
}

static void
fill_perspective (KmYamlNode     *entry,
                  const KmCamera *camera,
                  gboolean        camel)
{
  if (camera->orthographic)
    remove_all (entry, is_current_keys);
  else
    set_spelled (entry, is_current_keys, camel, km_yaml_node_new_bool (TRUE));
  set_spelled (entry, fov_keys, camel, km_yaml_node_new_number (camera->fov_y));
  km_yaml_mapping_set (entry, "eye", new_vec3 (km_camera_get_eye (camera)));
  km_yaml_mapping_set (entry, "direction", new_vec3 (km_camera_get_forward (camera)));
  km_yaml_mapping_set (entry, "up", new_vec3 (km_camera_get_up (camera)));
  km_yaml_mapping_set (entry, TARGET_DISTANCE_KEY, km_yaml_node_new_number (camera->distance));
}

static void
fill_orthographic (KmYamlNode     *entry,
                   const KmCamera *camera,
                   gboolean        camel)
{
  if (camera->orthographic)
    set_spelled (entry, is_current_keys, camel, km_yaml_node_new_bool (TRUE));
  else
    remove_all (entry, is_current_keys);
  set_spelled (entry, ortho_height_keys, camel,
               km_yaml_node_new_number (2.0 * camera->distance * tan (camera->fov_y / 2.0)));
  /* The place is the perspective camera's; a copy here would only go stale. */
  km_yaml_mapping_remove (entry, "eye");
  km_yaml_mapping_remove (entry, "direction");
  km_yaml_mapping_remove (entry, "up");
  km_yaml_mapping_remove (entry, TARGET_DISTANCE_KEY);
}

/* The SceneView entry of @views to change (a new one appended when there is none). */
static KmYamlNode *
scene_view_entry (KmYamlNode *views)
{
  KmYamlNode *view = find_scene_view (views, NULL);
  gint64 max_id = -1;

  if (view != NULL)
    return view;

  for (guint i = 0; i < km_yaml_node_get_length (views); i++)
    {
      double id;

      if (km_yaml_scalar_to_double (km_yaml_mapping_lookup (km_yaml_sequence_get (views, i), "id"),
                                    &id) && id > max_id && id < G_MAXINT32)
        max_id = (gint64) id;
    }
  view = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_yaml_mapping_append (view, "id", km_yaml_node_new_int (max_id + 1));
  km_yaml_mapping_append (view, "plugin", km_yaml_node_new_scalar ("Base", KM_YAML_STYLE_PLAIN));
  km_yaml_mapping_append (view, "class",
                          km_yaml_node_new_scalar ("SceneView", KM_YAML_STYLE_PLAIN));
  km_yaml_mapping_append (view, "mounted", km_yaml_node_new_bool (TRUE));
  km_yaml_sequence_append (views, view);
  return view;
}

/* The mapping under @key of @mapping, made one when it is missing or something else; a new
 * key is written in @key_style (Choreonoid quotes the names of toolbars). */
static KmYamlNode *
child_mapping (KmYamlNode  *mapping,
               const char  *key,
               KmYamlStyle  key_style)
{
  KmYamlNode *child = km_yaml_mapping_lookup (mapping, key);

  if (child != NULL && km_yaml_node_get_kind (child) != KM_YAML_MAPPING)
    km_yaml_mapping_set (mapping, key, km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK));
  else if (child == NULL)
    km_yaml_mapping_append_node (mapping, km_yaml_node_new_scalar (key, key_style),
                                 km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK));
  return km_yaml_mapping_lookup (mapping, key);
}

static gboolean
same_camera (const KmCamera *a,
             const KmCamera *b)
{
  return a->target.x == b->target.x && a->target.y == b->target.y
         && a->target.z == b->target.z && a->yaw == b->yaw && a->pitch == b->pitch
         && a->distance == b->distance && a->fov_y == b->fov_y
         && !a->orthographic == !b->orthographic;
}

/**
 * km_layout_state_set_camera:
 *
 * Writes @camera as the current camera of the project's first SceneView (one is added when
 * there is none), replacing Choreonoid's two system cameras and keeping other cameras and
 * keys. A camera the project already has (reading it gives @camera) is left as the file
 * has it, spelling and digits included. The field of view and the orthographic height are
 * both across the view's shorter side, so neither depends on the view's shape: a view
 * resized between open and save writes back what it read.
 */
void
km_layout_state_set_camera (KmProject      *project,
                            const KmCamera *camera)
{
  g_autoptr(KmYamlNode) sections = NULL;
  KmYamlNode *views, *state, *cameras;
  gboolean has_perspective = FALSE, has_orthographic = FALSE, camel = FALSE;
  KmCamera stored;

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (camera != NULL);

  stored = *camera;
  if (km_layout_state_get_camera (project, &stored) && same_camera (&stored, camera))
    return;
  sections = copy_sections (project);
  views = km_yaml_mapping_lookup (sections, "views");
  if (views == NULL || km_yaml_node_get_kind (views) != KM_YAML_SEQUENCE)
    {
      km_yaml_mapping_set (sections, "views", km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK));
      views = km_yaml_mapping_lookup (sections, "views");
    }
  state = child_mapping (scene_view_entry (views), "state", KM_YAML_STYLE_PLAIN);
  cameras = km_yaml_mapping_lookup (state, "cameras");
  if (cameras == NULL || km_yaml_node_get_kind (cameras) != KM_YAML_SEQUENCE)
    {
      km_yaml_mapping_set (state, "cameras", km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK));
      cameras = km_yaml_mapping_lookup (state, "cameras");
    }

  for (guint i = 0; i < km_yaml_node_get_length (cameras); i++)
    camel = camel || has_camel_case (km_yaml_sequence_get (cameras, i), camera_key_lists);
  for (guint i = 0; i < km_yaml_node_get_length (cameras); i++)
    {
      KmYamlNode *entry = km_yaml_sequence_get (cameras, i);
      const char *kind = system_camera_kind (entry);

      if (km_yaml_node_get_kind (entry) != KM_YAML_MAPPING)
        continue;
      if (kind != NULL && g_str_equal (kind, "Perspective") && !has_perspective)
        {
          fill_perspective (entry, camera, camel);
          has_perspective = TRUE;
        }
      else if (kind != NULL && g_str_equal (kind, "Orthographic") && !has_orthographic)
        {
          fill_orthographic (entry, camera, camel);
          has_orthographic = TRUE;
        }
      else
        remove_all (entry, is_current_keys);
    }
  if (!has_perspective)
    {
      KmYamlNode *entry = new_system_camera ("Perspective");

      fill_perspective (entry, camera, camel);
      km_yaml_sequence_append (cameras, entry);
    }
  if (!has_orthographic)
    {
      KmYamlNode *entry = new_system_camera ("Orthographic");

      fill_orthographic (entry, camera, camel);
      km_yaml_sequence_append (cameras, entry);
    }

  km_project_set_sections (project, sections);
}

/**
 * km_layout_state_get_time_bar:
 * @state: (out): the time bar's state; keys the file lacks get defaults (time 0, the
 *   range 0 – 0, 30 frames per second, playback at 60 updates per second and speed 1)
 *
 * Returns: whether the project has a TimeBar in `toolbars`
 */
gboolean
km_layout_state_get_time_bar (KmProject      *project,
                              KmTimeBarState *state)
{
  KmYamlNode *bar;

  g_return_val_if_fail (KM_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (state != NULL, FALSE);

  *state = (KmTimeBarState) {
    .current_time = 0.0,
    .min_time = 0.0,
    .max_time = 0.0,
    .frame_rate = 30.0,
    .playback_frame_rate = DEFAULT_PLAYBACK_FRAME_RATE,
    .playback_speed_ratio = 1.0,
  };
  bar = find_time_bar (km_project_get_sections (project));
  if (bar == NULL)
    return FALSE;

  lookup_double (bar, current_time_keys, &state->current_time);
  lookup_double (bar, min_time_keys, &state->min_time);
  lookup_double (bar, max_time_keys, &state->max_time);
  lookup_double (bar, frame_rate_keys, &state->frame_rate);
  lookup_double (bar, playback_frame_rate_keys, &state->playback_frame_rate);
  lookup_double (bar, speed_keys, &state->playback_speed_ratio);
  return TRUE;
}

/* Sets @value under @keys as set_spelled does, unless the mapping has it already (the same
 * number, in whatever digits and spelling the file has it). */
static void
set_number (KmYamlNode         *mapping,
            const char * const *keys,
            gboolean            camel_case,
            double              value)
{
  double stored;

  if (lookup_double (mapping, keys, &stored) && stored == value)
    return;
  set_spelled (mapping, keys, camel_case, km_yaml_node_new_number (value));
}

/**
 * km_layout_state_set_time_bar:
 *
 * Writes @state as `toolbars: "TimeBar":` (other toolbars and other keys of the TimeBar
 * are kept, and so is a value the TimeBar has already, as the file writes it).
 */
void
km_layout_state_set_time_bar (KmProject            *project,
                              const KmTimeBarState *state)
{
  g_autoptr(KmYamlNode) sections = NULL;
  KmYamlNode *bar;
  gboolean camel;

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (state != NULL);

  sections = copy_sections (project);
  bar = child_mapping (child_mapping (sections, "toolbars", KM_YAML_STYLE_PLAIN), "TimeBar",
                      KM_YAML_STYLE_DOUBLE_QUOTED);
  camel = has_camel_case (bar, time_bar_key_lists);
  set_number (bar, current_time_keys, camel, state->current_time);
  set_number (bar, min_time_keys, camel, state->min_time);
  set_number (bar, max_time_keys, camel, state->max_time);
  set_number (bar, frame_rate_keys, camel, state->frame_rate);
  set_number (bar, playback_frame_rate_keys, camel, state->playback_frame_rate);
  set_number (bar, speed_keys, camel, state->playback_speed_ratio);
  km_project_set_sections (project, sections);
}

/**
 * km_layout_state_store:
 *
 * Puts the scene view's camera and the time bar's state (current time and range of its
 * document, the project's frame rate (km_document_get_project_frame_rate), playback speed)
 * into @project's sections, when the project keeps its layout
 * (km_project_get_save_layout); the sections are left as read otherwise.
 *
 * The TimeBar is the user's Choreonoid state, so an unedited open and save writes back what
 * it read:
 * - `current_time`: the time the time bar is at; the file's value stays while the time bar
 *   is at the frame that value gives (km_document_set_current_time), digits and all.
 * - `min_time`, `playback_frame_rate` and keys Kinema does not know: as read (Kinema's time
 *   bar starts at 0 and plays at the display's rate); min_time 0 where the one read would
 *   come after the time or the range's end written.
 * - `max_time`: the project's saved range (km_document_get_project_max_time), or the
 *   motion's end where that is later; without either, the end of the range the time bar
 *   shows (which gives Choreonoid a range, not one frame of no length).
 * - `frame_rate`: the project's (km_document_get_project_frame_rate).
 * A project that has no TimeBar gets none (Choreonoid keeps its own defaults for it,
 * its frame rate included) unless the user made it hold something: the time bar is not at
 * 0, the playback speed is not 1, or there is a motion (more than one frame), whose range
 * Choreonoid should show. Kinema has no control for the frame rate, so that alone never
 * adds one.
 */
void
km_layout_state_store (KmProject   *project,
                       KmSceneView *scene_view,
                       KmTimeBar   *time_bar)
{
  KmDocument *document;
  KmTimeBarState state;
  gboolean had;

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (KM_IS_SCENE_VIEW (scene_view));
  g_return_if_fail (KM_IS_TIME_BAR (time_bar));

  if (!km_project_get_save_layout (project))
    return;

  km_layout_state_set_camera (project, km_scene_view_get_camera (scene_view));

  /* The playback frame rate is the display's, min_time Choreonoid's: keep what the file
   * says. */
  had = km_layout_state_get_time_bar (project, &state);
  document = km_time_bar_get_document (time_bar);
  state.playback_speed_ratio = km_time_bar_get_speed (time_bar);
  if (document != NULL)
    {
      double rate = km_document_get_frame_rate (document);
      guint last = km_document_get_n_frames (document) - 1;
      guint frame = km_document_get_current_frame (document);
      double saved_end = km_document_get_project_max_time (document);

      /* Nothing for Choreonoid that it would not have by itself (see above). */
      if (!had && frame == 0 && state.playback_speed_ratio == 1.0 && last == 0)
        return;
      /* The project's rate, not the current body's (its targets may run at another one);
       * the times are in seconds, of the frames the time bar shows. */
      state.frame_rate = km_document_get_project_frame_rate (document);
      if (!had || round (state.current_time * rate) != frame)
        state.current_time = frame / rate;
      /* The saved range, or the motion's end where it is later; with neither (a single
       * frame, which would give Choreonoid a range of no length), the end of the range
       * the time bar shows (km_document_get_timeline_frames). */
      if (last == 0 && !(saved_end > 0))
        last = km_document_get_timeline_frames (document) - 1;
      state.max_time = MAX (saved_end, last / rate);
      /* Kept as read while it begins a range holding the time written; else Kinema's own
       * start, 0: a range ending before it begins, or leaving the time outside, is none. */
      if (!(state.min_time >= 0.0
            && state.min_time <= MIN (state.current_time, state.max_time)))
        state.min_time = 0.0;
    }
  else if (!had && state.playback_speed_ratio == 1.0)
    return;
  km_layout_state_set_time_bar (project, &state);
}

/**
 * km_layout_state_restore:
 *
 * Shows @project's saved camera in the scene view and goes to its saved time (the frame
 * nearest it at the document's frame rate, within the time bar's range) at its playback
 * speed. The frame rate is the project's motion's, the range its motion's or the saved one
 * where that is longer (the document read them with the project:
 * km_document_get_project_frame_rate, km_document_get_project_max_time). What the project
 * does not have stays as it is.
 */
void
km_layout_state_restore (KmProject   *project,
                         KmSceneView *scene_view,
                         KmTimeBar   *time_bar)
{
  KmCamera camera;
  KmDocument *document;
  KmTimeBarState state;

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (KM_IS_SCENE_VIEW (scene_view));
  g_return_if_fail (KM_IS_TIME_BAR (time_bar));

  camera = *km_scene_view_get_camera (scene_view);
  document = km_time_bar_get_document (time_bar);

  if (km_layout_state_get_camera (project, &camera))
    km_scene_view_set_camera (scene_view, &camera);

  if (!km_layout_state_get_time_bar (project, &state))
    return;
  if (state.playback_speed_ratio > 0.0)
    km_time_bar_set_speed (time_bar, state.playback_speed_ratio);
  if (document != NULL && state.current_time >= 0.0)
    km_document_set_current_time (document, state.current_time);
}
