/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_TIME_BAR (km_time_bar_get_type ())

G_DECLARE_FINAL_TYPE (KmTimeBar, km_time_bar, KM, TIME_BAR, GtkWidget)

/* What the time bar marks at a frame of the solved animation. */
typedef enum
{
  KM_TIME_BAR_MARK_MISSED   = 1 << 0,  /* the solve missed its target */
  KM_TIME_BAR_MARK_AT_LIMIT = 1 << 1,  /* a joint sits on one of its limits */
  KM_TIME_BAR_MARK_JUMPED   = 1 << 2,  /* the motion jumps there from the frame before */
} KmTimeBarMarks;

GtkWidget  *km_time_bar_new           (void);
KmDocument *km_time_bar_get_document  (KmTimeBar  *self);
void        km_time_bar_set_document  (KmTimeBar  *self,
                                       KmDocument *document);
gboolean    km_time_bar_get_playing   (KmTimeBar  *self);
void        km_time_bar_set_playing   (KmTimeBar  *self,
                                       gboolean    playing);
gboolean    km_time_bar_get_loop      (KmTimeBar  *self);
void        km_time_bar_set_loop      (KmTimeBar  *self,
                                       gboolean    loop);
double      km_time_bar_get_speed     (KmTimeBar  *self);
void        km_time_bar_set_speed     (KmTimeBar  *self,
                                       double      speed);
gboolean    km_time_bar_get_keyframe_point (KmTimeBar *self,
                                            guint      frame,
                                            double    *x,
                                            double    *y);
KmTimeBarMarks km_time_bar_get_frame_marks    (KmTimeBar *self,
                                              guint      frame);
guint       km_time_bar_get_n_marked_frames (KmTimeBar *self);
gboolean    km_time_bar_get_has_clipboard   (KmTimeBar *self);
GtkWidget  *km_time_bar_get_strip           (KmTimeBar *self);

G_END_DECLS
