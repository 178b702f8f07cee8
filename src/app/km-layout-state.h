/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-camera.h"
#include "km-project.h"
#include "km-scene-view.h"
#include "km-time-bar.h"

G_BEGIN_DECLS

/*
 * The scene view's camera and the time bar's state in a project's `views` and `toolbars`
 * sections, with the keys Choreonoid writes (so Choreonoid and Kinema read each other's
 * camera and time):
 *
 *   views:                                  toolbars:
 *     - id: 4                                 "TimeBar":
 *       plugin: Base                            current_time: 0.5
 *       class: SceneView                        min_time: 0
 *       mounted: true                           max_time: 4
 *       state:                                  frame_rate: 30
 *         cameras:                              playback_frame_rate: 60
 *           - camera: [ System, Perspective ]   playback_speed_ratio: 1
 *             is_current: true
 *             field_of_view: 0.8
 *             eye: [ 3, 1.5, 1.2 ]
 *             direction: [ -0.88, -0.44, -0.176 ]
 *             up: [ -0.157, -0.079, 0.984 ]
 *             kinema_target_distance: 3.5
 *           - camera: [ System, Orthographic ]
 *             ortho_height: 2.5
 *
 * Choreonoid's older camelCase keys (isCurrent, fieldOfView, orthoHeight, currentTime,
 * minTime, maxTime, frameRate, playbackFrameRate, speedScale) are read too; when writing, a
 * key that is there keeps its spelling and a new key takes the spelling the cameras (or
 * the TimeBar) already use. Everything else in the sections (other views, other cameras,
 * other keys) is kept as it was.
 *
 * Choreonoid's field_of_view is the angle across the shorter side of the view (VRML's
 * "minimum viewing angle"), as KmCamera's fov_y is: it is read and written as it is, and
 * the view's aspect ratio applies only when it is drawn, so a window resized or a bar
 * shown between open and save leaves it as the file had it. orthoHeight is taken the same
 * way, as the extent across the shorter side: the vertical extent of a view wider than
 * tall, as Choreonoid draws it; in a view taller than wide Choreonoid would show it
 * across the height, Kinema across the width.
 * Choreonoid keeps no orbit target: `kinema_target_distance` (ignored by Choreonoid) keeps
 * Kinema's; without it the target is the point of the view axis nearest the origin.
 */

typedef struct
{
  double current_time;          /* s */
  double min_time;              /* s */
  double max_time;              /* s */
  double frame_rate;            /* frames per second of the motion */
  double playback_frame_rate;   /* display updates per second while playing */
  double playback_speed_ratio;  /* 1 = real time */
} KmTimeBarState;

gboolean  km_layout_state_get_camera    (KmProject             *project,
                                         KmCamera              *camera);
void      km_layout_state_set_camera    (KmProject             *project,
                                         const KmCamera        *camera);
gboolean  km_layout_state_get_time_bar  (KmProject             *project,
                                         KmTimeBarState        *state);
void      km_layout_state_set_time_bar  (KmProject             *project,
                                         const KmTimeBarState  *state);

/* The window's side: what the scene view and time bar (and its document) show now, into
 * the project, and back. */
void      km_layout_state_store         (KmProject             *project,
                                         KmSceneView           *scene_view,
                                         KmTimeBar             *time_bar);
void      km_layout_state_restore       (KmProject             *project,
                                         KmSceneView           *scene_view,
                                         KmTimeBar             *time_bar);

G_END_DECLS
