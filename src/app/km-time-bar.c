/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-time-bar"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-time-bar.h"
#include "km-root-keys.h"
#include "km-document-edit.h"
#include "km-ik.h"

/*
 * Playback advances the document's current frame from the frame clock (a tick callback),
 * so it follows the display's real time at the document's frame rate times the playback
 * speed, whatever the monitor refresh; a slow frame skips frames rather than slowing the
 * motion down. Target keyframes show as marks under the slider, over coloured bands at the
 * frames whose solve missed its target (red) or left a joint on a limit (orange), and a
 * purple bar along the top at a frame the motion jumps to (km_animation_get_jumped()); the
 * strip's tooltip says what marks the frame under the pointer has. A playing pose
 * sequence's key poses show as outlined marks (they cannot be dragged).
 *
 * The slider, the strip, stepping and End span the document's timeline
 * (km_document_get_timeline_frames), which runs on past the motion so that the user can
 * step to a later frame and key it; playback plays the motion (frames 0 to the last
 * keyframe, or the animation's), not the held pose after it. A project that saved its time
 * bar's range (Choreonoid's TimeBar min_time and max_time) plays that range instead, as
 * Choreonoid does, from its start to its end (or the motion's end, where that is later),
 * looping back to its start; past the motion's end its last pose holds. Home and End go to
 * the start and end of that range (get_play_range()).
 *
 * While the pose shown is a dragged one the motion would replace at the next frame change
 * (km_document_get_pose_unkeyed), the Set Keyframe button stands out and says so.
 */

#define MIN_SPEED 0.25
#define MAX_SPEED 4.0
/* The keyframe strip maps frames like the slider's trough: inset by about half a slider. */
#define STRIP_PAD 10.0
#define TICK_HALF_WIDTH 4.0
#define TICK_PICK_PIXELS 6.0
/* A joint this close to a limit (rad or m) sits on it: the solver clamps onto limits. */
#define LIMIT_EPSILON 1e-6
/* Marked frames: at least this wide, so one frame of many still shows. */
#define MARK_MIN_WIDTH 2.0
/* A jump's mark: a bar along the top of the strip, at least this wide (a spike of one
 * frame is what it shows), over this share of the strip's height. */
#define JUMP_MIN_WIDTH 5.0
#define JUMP_HEIGHT_SHARE 0.4

struct _KmTimeBar
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkAdjustment  *adjustment;
  GtkButton      *play_button;
  GtkButton      *set_keyframe_button;
  GtkButton      *cancel_button;
  GtkInscription *frame_label;
  GtkProgressBar *progress_bar;
  GtkScale       *scale;
  GtkDrawingArea *keyframe_strip;
  GtkMenuButton  *speed_button;

  /* Owned */
  KmDocument     *document;
  GSignalGroup   *document_signals;

  /* Borrowed: owned by the root widget while we are rooted */
  GtkEventController *root_keys;

  guint           tick_id;
  gint64          play_start_time;    /* µs, frame clock time of the first tick */
  guint           play_start_frame;
  double          speed;
  gboolean        loop;
  gboolean        updating;

  /* A keyframe tick being dragged: from where, and where it would land. */
  int             tick_from;        /* -1 when none */
  guint           tick_to;

  gboolean          has_clipboard;
  KmTargetKeyframe  clipboard;

  /* KmTimeBarMarks of each frame of the solved animation */
  GByteArray       *marks;
  guint             n_marked;

  /* The widest frame text, which frame_label's natural width was measured on */
  char             *widest_text;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_LOOP,
  PROP_PLAYING,
  PROP_SPEED,
  PROP_HAS_CLIPBOARD,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmTimeBar, km_time_bar, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

/* The frame text's natural width is that of its widest text (the last frame's: digits are
 * of one width), in the characters GtkInscription counts: a fixed number of characters
 * fell short in languages of wider glyphs, and the end of the text was cut off. */
static void
update_label_width (KmTimeBar *self,
                    guint      n_frames,
                    double     rate)
{
  GtkWidget *label = GTK_WIDGET (self->frame_label);
  g_autofree char *widest = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  PangoFontMetrics *metrics;
  int char_width, text_width = 0;

  widest = g_strdup_printf (_("Frame %u / %u  ·  %.2f s"), n_frames - 1, n_frames - 1,
                            (n_frames - 1) / rate);
  if (g_strcmp0 (widest, self->widest_text) == 0)
    return;
  g_free (self->widest_text);
  self->widest_text = g_steal_pointer (&widest);

  /* What GtkInscription takes for a character's width. */
  metrics = pango_context_get_metrics (gtk_widget_get_pango_context (label), NULL, NULL);
  char_width = MAX (pango_font_metrics_get_approximate_char_width (metrics),
                    pango_font_metrics_get_approximate_digit_width (metrics));
  pango_font_metrics_unref (metrics);
  layout = gtk_widget_create_pango_layout (label, self->widest_text);
  pango_layout_set_attributes (layout, gtk_inscription_get_attributes (self->frame_label));
  pango_layout_get_size (layout, &text_width, NULL);
  if (char_width > 0)
    gtk_inscription_set_nat_chars (self->frame_label,
                                   MAX (gtk_inscription_get_min_chars (self->frame_label),
                                        (guint) ((text_width + char_width - 1) / char_width) + 1));
}

/* Whether @text, as the frame label shows it, is at most @width pixels wide. */
static gboolean
label_text_fits (KmTimeBar  *self,
                 const char *text,
                 int         width)
{
  g_autoptr(PangoLayout) layout = NULL;
  int text_width = 0;

  layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->frame_label), text);
  pango_layout_set_attributes (layout, gtk_inscription_get_attributes (self->frame_label));
  pango_layout_get_pixel_size (layout, &text_width, NULL);
  return text_width <= width;
}

/* The frame the time bar shows, the last frame and the frame rate. */
static void
get_frames (KmTimeBar *self,
            guint     *frame,
            guint     *n_frames,
            double    *rate)
{
  *frame = 0;
  *n_frames = 1;
  *rate = 30.0;
  if (self->document != NULL)
    {
      *frame = km_document_get_current_frame (self->document);
      *n_frames = km_document_get_timeline_frames (self->document);
      *rate = km_document_get_frame_rate (self->document);
    }
}

/* The whole frame text. */
static char *
frame_text (guint  frame,
            guint  n_frames,
            double rate)
{
  /* Translators: current frame, last frame, then the current time in seconds */
  return g_strdup_printf (_("Frame %u / %u  ·  %.2f s"), frame, n_frames - 1, frame / rate);
}

/* The label shows the whole frame text where it is wide enough, else the current frame and
 * the last ("35 / 300"), else the current frame alone, so that the frame can still be read
 * in a narrow window (ellipsized, the whole text showed "Fram…"). The label's size does not
 * follow its text (an inscription), so the text can change as the label is allocated. */
static void
fit_label_text (KmTimeBar *self)
{
  g_autofree char *text = NULL;
  g_autofree char *frames = NULL;
  g_autofree char *number = NULL;
  guint frame, n_frames;
  double rate;
  int width;

  get_frames (self, &frame, &n_frames, &rate);
  text = frame_text (frame, n_frames, rate);
  /* Not laid out yet: the whole text, until the label has a width. */
  width = gtk_widget_get_width (GTK_WIDGET (self->frame_label));
  if (width <= 0 || label_text_fits (self, text, width))
    {
      gtk_inscription_set_text (self->frame_label, text);
      return;
    }
  /* Translators: the current frame and the last frame, shown instead of the whole frame
   * text ("Frame %u / %u  ·  %.2f s") in a time bar too narrow for it */
  frames = g_strdup_printf (_("%u / %u"), frame, n_frames - 1);
  if (label_text_fits (self, frames, width))
    {
      gtk_inscription_set_text (self->frame_label, frames);
      return;
    }
  number = g_strdup_printf ("%u", frame);
  gtk_inscription_set_text (self->frame_label, number);
}

/* The frame text (as fits the label), its tooltip (the whole text) and the label's natural
 * width. */
static void
update_label (KmTimeBar *self)
{
  g_autofree char *text = NULL;
  guint frame, n_frames;
  double rate;

  get_frames (self, &frame, &n_frames, &rate);
  text = frame_text (frame, n_frames, rate);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->frame_label), text);
  update_label_width (self, n_frames, rate);
  fit_label_text (self);
}

/* Delete and copy act on the keyframe at the current frame: enabled only where there is one. */
static void
update_keyframe_actions (KmTimeBar *self)
{
  KmTargetTrack *targets = self->document ? km_document_get_targets (self->document) : NULL;
  gboolean keyed = targets != NULL
                   && km_target_track_find_keyframe (targets,
                                                     km_document_get_current_frame (self->document))
                      >= 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "time.delete-keyframe", keyed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "time.copy-keyframe", keyed);
}

/* An unkeyed pose (a drag the next frame change replaces): Set Keyframe is the way to keep
 * it, so it stands out and says why. Playback stops: it would replace the pose at its next
 * frame, and a drag made while it ran would become one edit per frame it passed. */
static void
update_pose_unkeyed (KmTimeBar *self)
{
  GtkWidget *button = GTK_WIDGET (self->set_keyframe_button);
  gboolean unkeyed = self->document != NULL
                     && km_document_get_pose_unkeyed (self->document, NULL);

  if (unkeyed && km_time_bar_get_playing (self))
    km_time_bar_set_playing (self, FALSE);

  if (unkeyed == gtk_widget_has_css_class (button, "suggested-action"))
    return;
  if (unkeyed)
    {
      /* Not flat: a flat button shows the suggested colour on its icon only. */
      gtk_widget_remove_css_class (button, "flat");
      gtk_widget_add_css_class (button, "suggested-action");
      gtk_widget_set_tooltip_text (button, _("Pose not keyed: press K to key it, or it is "
                                             "replaced when the time changes"));
    }
  else
    {
      gtk_widget_remove_css_class (button, "suggested-action");
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_tooltip_text (button, _("Set Keyframe"));
    }
}

static void
document_frame_changed_cb (KmTimeBar *self)
{
  update_keyframe_actions (self);
  if (self->document == NULL)
    return;

  self->updating = TRUE;
  gtk_adjustment_set_value (self->adjustment, km_document_get_current_frame (self->document));
  self->updating = FALSE;
  update_label (self);
}

static void
document_range_changed_cb (KmTimeBar *self)
{
  guint n_frames = self->document ? km_document_get_n_frames (self->document) : 1;
  guint range = self->document ? km_document_get_timeline_frames (self->document) : 1;

  gtk_widget_queue_draw (GTK_WIDGET (self->keyframe_strip));
  self->updating = TRUE;
  gtk_adjustment_set_upper (self->adjustment, range - 1);
  self->updating = FALSE;
  /* Playback plays the motion: there is none to play in a single frame. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "time.toggle-playback", n_frames > 1);
  document_frame_changed_cb (self);
}

static double
strip_x (KmTimeBar *self,
         double     frame)
{
  double width = gtk_widget_get_width (GTK_WIDGET (self->keyframe_strip));
  double last = self->document ? km_document_get_timeline_frames (self->document) - 1.0 : 0.0;

  return STRIP_PAD + (last > 0 ? frame / last : 0.0) * MAX (width - 2 * STRIP_PAD, 1.0);
}

static guint
strip_frame_at (KmTimeBar *self,
                double     x)
{
  double width = gtk_widget_get_width (GTK_WIDGET (self->keyframe_strip)) - 2 * STRIP_PAD;
  double last = self->document ? km_document_get_timeline_frames (self->document) - 1.0 : 0.0;

  return (guint) CLAMP (round ((x - STRIP_PAD) / MAX (width, 1.0) * last), 0.0, last);
}

/* Bands under the frames the solve marked: a frame's band spans half a frame each side. */
static void
draw_marks (KmTimeBar *self,
            cairo_t   *cr,
            int        height)
{
  static const struct
  {
    KmTimeBarMarks mark;
    double         r, g, b;
  } kinds[] = {
    /* GNOME palette: orange 3 under red 3, so a frame with both shows red */
    { KM_TIME_BAR_MARK_AT_LIMIT, 0xff / 255.0, 0x78 / 255.0, 0x00 / 255.0 },
    { KM_TIME_BAR_MARK_MISSED, 0xe0 / 255.0, 0x1b / 255.0, 0x24 / 255.0 },
  };

  if (self->n_marked == 0)
    return;

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      cairo_set_source_rgb (cr, kinds[k].r, kinds[k].g, kinds[k].b);
      for (guint f = 0; f < self->marks->len; f++)
        {
          double x0, x1;

          if (!(self->marks->data[f] & kinds[k].mark))
            continue;
          x0 = strip_x (self, f - 0.5);
          x1 = strip_x (self, f + 0.5);
          if (x1 - x0 < MARK_MIN_WIDTH)
            {
              double mid = (x0 + x1) / 2.0;

              x0 = mid - MARK_MIN_WIDTH / 2.0;
              x1 = mid + MARK_MIN_WIDTH / 2.0;
            }
          cairo_rectangle (cr, floor (x0), 0, MAX (ceil (x1) - floor (x0), 1.0), height);
        }
      cairo_fill (cr);
    }

  /* A jump: GNOME purple 3, over the bands, another shape than theirs. */
  cairo_set_source_rgb (cr, 0x91 / 255.0, 0x41 / 255.0, 0xac / 255.0);
  for (guint f = 0; f < self->marks->len; f++)
    if (self->marks->data[f] & KM_TIME_BAR_MARK_JUMPED)
      {
        double x0 = strip_x (self, f - 0.5), x1 = strip_x (self, f + 0.5);

        if (x1 - x0 < JUMP_MIN_WIDTH)
          {
            double mid = (x0 + x1) / 2.0;

            x0 = mid - JUMP_MIN_WIDTH / 2.0;
            x1 = mid + JUMP_MIN_WIDTH / 2.0;
          }
        cairo_rectangle (cr, floor (x0), 0, ceil (x1) - floor (x0),
                         MAX (ceil (height * JUMP_HEIGHT_SHARE), 2.0));
      }
  cairo_fill (cr);
}

/* The strip's tooltip over a marked frame says what its marks mean (the jump's size); over
 * others, its own text (the template's, about dragging keyframes). */
static gboolean
strip_query_tooltip_cb (KmTimeBar  *self,
                        int         x,
                        int         y,
                        gboolean    keyboard,
                        GtkTooltip *tooltip)
{
  KmAnimation *animation = self->document ? km_document_get_animation (self->document) : NULL;
  g_autoptr(GString) text = NULL;
  guint first, last, jumped = G_MAXUINT;
  guint8 marks = 0;

  if (keyboard || animation == NULL || self->n_marked == 0 || self->marks->len == 0)
    return FALSE;
  /* The frames whose marks are drawn under the pointer (a mark is at least a few pixels
   * wide, so it may stand for a frame a little to the side). */
  first = strip_frame_at (self, x - JUMP_MIN_WIDTH / 2.0);
  last = MIN (strip_frame_at (self, x + JUMP_MIN_WIDTH / 2.0), self->marks->len - 1);
  for (guint f = first; f <= last; f++)
    {
      guint8 m = self->marks->data[f];

      if ((m & KM_TIME_BAR_MARK_JUMPED) && jumped == G_MAXUINT
          && f < km_animation_get_n_frames (animation))
        jumped = f;
      else
        m &= ~KM_TIME_BAR_MARK_JUMPED;
      marks |= m;
    }
  if (marks == 0)
    return FALSE;

  text = g_string_new (NULL);
  if (jumped != G_MAXUINT)
    {
      guint dof;
      double step = km_animation_get_step (animation, jumped, &dof);

      if (km_animation_get_dof_type (animation, dof) == KM_JOINT_PRISMATIC)
        /* Translators: the time bar's tooltip over a frame marked purple: a frame number,
         * then how far a prismatic joint moves in that one frame (m) */
        g_string_append_printf (text, _("The motion jumps at frame %u: a joint moves %.3f m "
                                        "in one frame"), jumped, step);
      else
        /* Translators: the time bar's tooltip over a frame marked purple: a frame number,
         * then how far a joint turns in that one frame (radians) */
        g_string_append_printf (text, _("The motion jumps at frame %u: a joint turns %.3f "
                                        "rad in one frame"), jumped, step);
    }
  if (marks & KM_TIME_BAR_MARK_MISSED)
    g_string_append_printf (text, "%s%s", text->len > 0 ? "\n" : "",
                            /* Translators: the time bar's tooltip over a frame marked red */
                            _("The solve misses its target here"));
  if (marks & KM_TIME_BAR_MARK_AT_LIMIT)
    g_string_append_printf (text, "%s%s", text->len > 0 ? "\n" : "",
                            /* Translators: the time bar's tooltip over a frame marked orange */
                            _("A joint the solve moves is at a limit here"));
  gtk_tooltip_set_text (tooltip, text->str);
  return TRUE;
}

/* Whether the keyframe at @frame is another than the one being dragged and lies where
 * the dragged one would land: dropped there, it replaces that one. */
static gboolean
drop_replaces (KmTimeBar *self,
               guint      frame)
{
  return self->tick_from >= 0 && (int) frame != self->tick_from && frame == self->tick_to;
}

static void
strip_draw_cb (GtkDrawingArea *area,
               cairo_t        *cr,
               int             width,
               int             height,
               gpointer        user_data)
{
  KmTimeBar *self = KM_TIME_BAR (user_data);
  KmTargetTrack *targets = self->document ? km_document_get_targets (self->document) : NULL;
  const KmTargetKeyframe *keys;
  GdkRGBA color;
  guint n = 0;

  draw_marks (self, cr, height);
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &color);
  gdk_cairo_set_source_rgba (cr, &color);
  /* A playing pose sequence's key poses: outlined, as they cannot be moved here. */
  if (self->document != NULL && km_document_get_n_pose_keys (self->document) > 0)
    {
      for (guint i = 0; i < km_document_get_n_pose_keys (self->document); i++)
        {
          double x = strip_x (self, km_document_get_pose_key_frame (self->document, i));

          cairo_move_to (cr, x, 0.5);
          cairo_line_to (cr, x + TICK_HALF_WIDTH - 0.5, height - 0.5);
          cairo_line_to (cr, x - TICK_HALF_WIDTH + 0.5, height - 0.5);
          cairo_close_path (cr);
        }
      cairo_set_line_width (cr, 1.0);
      cairo_stroke (cr);
    }
  if (targets == NULL)
    return;

  keys = km_target_track_get_keyframes (targets, &n);
  for (guint i = 0; i < n; i++)
    {
      double frame = (int) keys[i].frame == self->tick_from ? self->tick_to : keys[i].frame;
      double x = strip_x (self, frame);

      if (drop_replaces (self, keys[i].frame))
        continue;
      cairo_move_to (cr, x, 0);
      cairo_line_to (cr, x + TICK_HALF_WIDTH, height);
      cairo_line_to (cr, x - TICK_HALF_WIDTH, height);
      cairo_close_path (cr);
    }
  cairo_fill (cr);

  /* A dragged tick over another keyframe's frame: that keyframe would be replaced on
   * release, so it stands out (red, wider) while the pointer is there. */
  for (guint i = 0; i < n; i++)
    if (drop_replaces (self, keys[i].frame))
      {
        double x = strip_x (self, keys[i].frame);

        cairo_set_source_rgb (cr, 0.88, 0.11, 0.14);
        cairo_move_to (cr, x, 0);
        cairo_line_to (cr, x + 1.5 * TICK_HALF_WIDTH, height);
        cairo_line_to (cr, x - 1.5 * TICK_HALF_WIDTH, height);
        cairo_close_path (cr);
        cairo_fill (cr);
      }
}

/* Which frames of the solved animation missed their target (a position residual above the
 * solver's tolerance, or an orientation residual above it where the chain can meet
 * orientation, or a keyframe that a pose meets and the motion misses) or hold a joint the
 * solve moves on one of its limits. */
static void
update_marks (KmTimeBar *self)
{
  KmAnimation *animation = self->document ? km_document_get_animation (self->document) : NULL;
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;
  g_autofree double *lower = NULL;
  g_autofree double *upper = NULL;
  g_autofree gboolean *counted = NULL;
  gboolean orientation = FALSE;
  guint n_frames, n_dof;

  g_byte_array_set_size (self->marks, 0);
  self->n_marked = 0;
  gtk_widget_queue_draw (GTK_WIDGET (self->keyframe_strip));
  if (animation == NULL)
    return;

  n_frames = km_animation_get_n_frames (animation);
  n_dof = km_animation_get_n_dof (animation);
  g_byte_array_set_size (self->marks, n_frames);
  memset (self->marks->data, 0, n_frames);
  if (skeleton != NULL && km_skeleton_get_n_dof (skeleton) == n_dof)
    {
      lower = g_new (double, n_dof);
      upper = g_new (double, n_dof);
      km_skeleton_get_dof_limits (skeleton, lower, upper);
      counted = g_new (gboolean, MAX (n_dof, 1));
      /* A solved animation moves only the effector's chain (and its linked joints): the
       * other joints keep what they had, on a limit or not. So for one read from a file,
       * whose residuals come later (measured again: until then, no frame is red). Other
       * motions (a pose sequence) move every joint. */
      if (km_document_get_animation_solved (self->document))
        {
          km_document_get_solved_dofs (self->document, counted);
          orientation = km_document_get_solves_orientation (self->document);
        }
      else
        for (guint i = 0; i < n_dof; i++)
          counted[i] = TRUE;
    }

  for (guint f = 0; f < n_frames; f++)
    {
      const double *q = km_animation_get_frame (animation, f);
      double pos_err, rot_err;
      guint8 mark = 0;

      if (km_animation_get_residual (animation, f, &pos_err, &rot_err))
        {
          /* The solver reaches the position first and the orientation where the joints
           * allow: a chain of fewer than 6 DOFs (a 5-DOF arm) cannot turn every way, so
           * only its position is the target. */
          if (km_ik_residual_missed (pos_err, rot_err, orientation))
            mark |= KM_TIME_BAR_MARK_MISSED;
        }
      else if (km_animation_has_residuals (animation))
        continue;  /* not solved yet, while the frames stream in */
      /* A keyframe a pose meets but the motion reaches on another branch is missed on any
       * chain: on one that is not held to orientation, the residual rule above lets an
       * arm that comes back turned 180° pass (rev17-gui finding 3). */
      if (km_animation_find_missed_key (animation, f) != NULL)
        mark |= KM_TIME_BAR_MARK_MISSED;
      /* The solve had to move a joint much further in this one step than around it. */
      if (km_animation_get_jumped (animation, f))
        mark |= KM_TIME_BAR_MARK_JUMPED;
      for (guint i = 0; q != NULL && lower != NULL && i < n_dof; i++)
        if (counted[i]
            && ((isfinite (lower[i]) && q[i] <= lower[i] + LIMIT_EPSILON)
                || (isfinite (upper[i]) && q[i] >= upper[i] - LIMIT_EPSILON)))
          {
            mark |= KM_TIME_BAR_MARK_AT_LIMIT;
            break;
          }
      self->marks->data[f] = mark;
      if (mark != 0)
        self->n_marked++;
    }
}

static void
document_targets_changed_cb (KmTimeBar *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self->keyframe_strip));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "time.set-keyframe",
                                 self->document != NULL
                                 && km_document_get_effector (self->document) >= 0);
  update_keyframe_actions (self);
}

static void
strip_drag_begin_cb (KmTimeBar      *self,
                     double          x,
                     double          y,
                     GtkGestureDrag *gesture)
{
  KmTargetTrack *targets = self->document ? km_document_get_targets (self->document) : NULL;
  double best = TICK_PICK_PIXELS;
  const KmTargetKeyframe *keys;
  guint n = 0;

  self->tick_from = -1;
  if (targets == NULL)
    return;
  keys = km_target_track_get_keyframes (targets, &n);
  for (guint i = 0; i < n; i++)
    {
      double d = fabs (strip_x (self, keys[i].frame) - x);

      if (d <= best)
        best = d, self->tick_from = (int) keys[i].frame;
    }
  if (self->tick_from >= 0)
    self->tick_to = (guint) self->tick_from;
  else
    km_document_set_current_frame (self->document, strip_frame_at (self, x));
}

static void
strip_drag_update_cb (KmTimeBar      *self,
                      double          dx,
                      double          dy,
                      GtkGestureDrag *gesture)
{
  double x, y;

  if (self->document == NULL || !gtk_gesture_drag_get_start_point (gesture, &x, &y))
    return;
  if (self->tick_from < 0)
    {
      km_document_set_current_frame (self->document, strip_frame_at (self, x + dx));
      return;
    }
  self->tick_to = strip_frame_at (self, x + dx);
  gtk_widget_queue_draw (GTK_WIDGET (self->keyframe_strip));
}

static void
strip_drag_end_cb (KmTimeBar      *self,
                   double          dx,
                   double          dy,
                   GtkGestureDrag *gesture)
{
  int from = self->tick_from;

  self->tick_from = -1;
  if (from >= 0 && self->document != NULL)
    {
      strip_drag_update_cb (self, dx, dy, gesture);
      self->tick_from = -1;
      if (self->tick_to != (guint) from)
        {
          km_document_move_keyframe (self->document, (guint) from, self->tick_to);
          km_document_set_current_frame (self->document, self->tick_to);
        }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self->keyframe_strip));
}

static void
document_solving_changed_cb (KmTimeBar *self)
{
  gboolean solving = self->document && km_document_get_solving (self->document);

  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), solving);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), solving);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "time.cancel-solve", solving);
  if (solving)
    gtk_progress_bar_set_fraction (self->progress_bar,
                                   km_document_get_solve_progress (self->document));
}

static void
adjustment_value_changed_cb (KmTimeBar *self)
{
  if (self->updating || self->document == NULL)
    return;

  km_document_set_current_frame (self->document,
                                 (guint) lround (gtk_adjustment_get_value (self->adjustment)));
}

/* The frames playback covers and loops over: the motion's (0 to its last frame), or the
 * project's saved time bar range (km_document_get_project_min_time to
 * km_document_get_project_max_time, within the time bar's), reaching at least to the
 * motion's end. A saved start at or after that end is none (0). */
static void
get_play_range (KmTimeBar *self,
                guint     *first,
                guint     *last)
{
  double rate, min_time, max_time;
  guint timeline_last;

  *first = 0;
  *last = 0;
  if (self->document == NULL)
    return;

  rate = km_document_get_frame_rate (self->document);
  min_time = km_document_get_project_min_time (self->document);
  max_time = km_document_get_project_max_time (self->document);
  timeline_last = km_document_get_timeline_frames (self->document) - 1;
  *last = km_document_get_n_frames (self->document) - 1;
  if (max_time > 0)
    *last = MAX (*last, (guint) MIN (round (max_time * rate), (double) timeline_last));
  if (min_time > 0 && round (min_time * rate) < *last)
    *first = (guint) round (min_time * rate);
}

/* Whether the project saved a time bar range (which Home and End then go to). */
static gboolean
has_saved_range (KmTimeBar *self)
{
  return self->document != NULL
         && (km_document_get_project_min_time (self->document) > 0
             || km_document_get_project_max_time (self->document) > 0);
}

static void
update_play_button (KmTimeBar *self)
{
  gboolean playing = self->tick_id != 0;

  gtk_button_set_icon_name (self->play_button, playing ? "media-playback-pause-symbolic"
                                                       : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->play_button), playing ? _("Pause") : _("Play"));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLAYING]);
}

static gboolean
playback_tick_cb (GtkWidget     *widget,
                  GdkFrameClock *clock,
                  gpointer       user_data)
{
  KmTimeBar *self = KM_TIME_BAR (widget);
  gint64 now = gdk_frame_clock_get_frame_time (clock);
  guint first, last, frame;
  double elapsed;

  if (self->document == NULL)
    {
      self->tick_id = 0;
      update_play_button (self);
      return G_SOURCE_REMOVE;
    }

  if (self->play_start_time == 0)
    self->play_start_time = now;

  get_play_range (self, &first, &last);
  elapsed = (now - self->play_start_time) / (double) G_USEC_PER_SEC;
  frame = self->play_start_frame
          + (guint) floor (elapsed * km_document_get_frame_rate (self->document) * self->speed);

  if (frame > last)
    {
      /* Looping wraps to the range's start (Choreonoid's min_time), not to frame 0. */
      if (self->loop && last > first)
        frame = first + (frame - first) % (last - first + 1);
      else
        {
          km_document_set_current_frame (self->document, last);
          self->tick_id = 0;
          update_play_button (self);
          return G_SOURCE_REMOVE;
        }
    }
  km_document_set_current_frame (self->document, frame);
  return G_SOURCE_CONTINUE;
}

static void
toggle_playback_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  KmTimeBar *self = KM_TIME_BAR (widget);

  km_time_bar_set_playing (self, self->tick_id == 0);
}

static void
step_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  KmTimeBar *self = KM_TIME_BAR (widget);
  guint frame, last, first, end;

  if (self->document == NULL)
    return;

  km_time_bar_set_playing (self, FALSE);
  frame = km_document_get_current_frame (self->document);
  /* Stepping goes on past the motion, where a new keyframe extends it; End is the end of
   * the range (Home its start), as in Choreonoid's time bar: the project's saved range,
   * the one playback covers (get_play_range), where it has one. */
  last = km_document_get_timeline_frames (self->document) - 1;
  get_play_range (self, &first, &end);
  if (!has_saved_range (self))
    end = last;

  if (g_str_equal (action_name, "time.step-forward"))
    frame = MIN (frame + 1, last);
  else if (g_str_equal (action_name, "time.step-backward"))
    frame = frame > 0 ? frame - 1 : 0;
  else if (g_str_equal (action_name, "time.go-to-start"))
    frame = first;
  else
    frame = end;
  km_document_set_current_frame (self->document, frame);
}

static void
keyframe_jump_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  KmTimeBar *self = KM_TIME_BAR (widget);
  int frame;

  if (self->document == NULL)
    return;

  km_time_bar_set_playing (self, FALSE);
  frame = km_document_find_keyframe_near (self->document,
                                          km_document_get_current_frame (self->document),
                                          g_str_equal (action_name, "time.next-keyframe") ? 1 : -1);
  if (frame >= 0)
    km_document_set_current_frame (self->document, (guint) frame);
}

static void
keyframe_edit_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  KmTimeBar *self = KM_TIME_BAR (widget);
  guint frame;

  if (self->document == NULL)
    return;

  frame = km_document_get_current_frame (self->document);
  if (g_str_equal (action_name, "time.set-keyframe"))
    km_document_set_keyframe (self->document, frame);
  else if (g_str_equal (action_name, "time.delete-keyframe"))
    km_document_delete_keyframe (self->document, frame);
  else if (g_str_equal (action_name, "time.copy-keyframe"))
    {
      KmTargetTrack *targets = km_document_get_targets (self->document);
      int index = targets ? km_target_track_find_keyframe (targets, frame) : -1;

      if (index >= 0)
        {
          self->clipboard = *km_target_track_get_keyframe (targets, (guint) index);
          if (!self->has_clipboard)
            {
              self->has_clipboard = TRUE;
              gtk_widget_action_set_enabled (widget, "time.paste-keyframe", TRUE);
              g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_CLIPBOARD]);
            }
        }
    }
  else if (self->has_clipboard)
    {
      KmTargetKeyframe keyframe = self->clipboard;

      keyframe.frame = frame;
      km_document_put_keyframe (self->document, &keyframe);
    }
}

static void
cancel_solve_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  KmTimeBar *self = KM_TIME_BAR (widget);

  if (self->document != NULL)
    km_document_cancel_solve_for_user (self->document);
}

static gboolean
root_key_cb (GtkWidget *root,
             GVariant  *args,
             gpointer   user_data)
{
  if (km_root_key_is_for_focus (KM_TIME_BAR (user_data)->root_keys, root))
    return FALSE;
  return gtk_widget_activate_action (GTK_WIDGET (user_data), g_variant_get_string (args, NULL),
                                     NULL);
}

/*
 * The time bar's keys work wherever the keyboard focus is in the window, except in text
 * (an entry or a spin button takes its arrows, Home, End and letters) and in popovers:
 * a focused slider of the Pose tab must not turn its joint when the user steps frames.
 * GTK 4.8 ignores global and managed shortcut scopes on a descendant, so the time bar puts
 * a local controller on its root, in the capture phase (before the focused widget sees the
 * key), and takes it away again when it leaves. Copy and paste of keyframes are window
 * actions with application accelerators (Ctrl+Shift+C, Ctrl+Shift+V; an Alt+letter would
 * open a menu of the menu bar).
 */
static void
km_time_bar_root (GtkWidget *widget)
{
  static const struct
  {
    guint           keyval;
    GdkModifierType modifiers;
    const char     *action;
  } keys[] = {
    { GDK_KEY_space, 0, "time.toggle-playback" },
    { GDK_KEY_Right, 0, "time.step-forward" },
    { GDK_KEY_Left, 0, "time.step-backward" },
    { GDK_KEY_Home, 0, "time.go-to-start" },
    { GDK_KEY_End, 0, "time.go-to-end" },
    { GDK_KEY_Page_Up, 0, "time.previous-keyframe" },
    { GDK_KEY_Page_Down, 0, "time.next-keyframe" },
    { GDK_KEY_k, 0, "time.set-keyframe" },
    { GDK_KEY_i, 0, "time.set-keyframe" },
    { GDK_KEY_K, GDK_SHIFT_MASK, "time.delete-keyframe" },
  };
  KmTimeBar *self = KM_TIME_BAR (widget);
  GtkWidget *root;

  GTK_WIDGET_CLASS (km_time_bar_parent_class)->root (widget);

  root = GTK_WIDGET (gtk_widget_get_root (widget));
  self->root_keys = gtk_shortcut_controller_new ();
  gtk_event_controller_set_name (self->root_keys, "km-time-bar-keys");
  gtk_event_controller_set_propagation_phase (self->root_keys, GTK_PHASE_CAPTURE);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].keyval,
                                                                                keys[i].modifiers),
                                                gtk_callback_action_new (root_key_cb, self, NULL));

      gtk_shortcut_set_arguments (shortcut, g_variant_new_string (keys[i].action));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (self->root_keys), shortcut);
    }
  gtk_widget_add_controller (root, self->root_keys);
}

static void
km_time_bar_unroot (GtkWidget *widget)
{
  KmTimeBar *self = KM_TIME_BAR (widget);

  if (self->root_keys != NULL)
    gtk_widget_remove_controller (GTK_WIDGET (gtk_widget_get_root (widget)), self->root_keys);
  self->root_keys = NULL;

  GTK_WIDGET_CLASS (km_time_bar_parent_class)->unroot (widget);
}

static void
km_time_bar_dispose (GObject *object)
{
  KmTimeBar *self = (KmTimeBar *) object;
  GtkWidget *child;

  if (self->tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
  self->tick_id = 0;
  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  g_clear_pointer (&self->marks, g_byte_array_unref);
  g_clear_pointer (&self->widest_text, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_TIME_BAR);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (km_time_bar_parent_class)->dispose (object);
}

static void
km_time_bar_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KmTimeBar *self = KM_TIME_BAR (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_LOOP:
      g_value_set_boolean (value, self->loop);
      break;
    case PROP_PLAYING:
      g_value_set_boolean (value, self->tick_id != 0);
      break;
    case PROP_SPEED:
      g_value_set_double (value, self->speed);
      break;
    case PROP_HAS_CLIPBOARD:
      g_value_set_boolean (value, self->has_clipboard);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_time_bar_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  KmTimeBar *self = KM_TIME_BAR (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_time_bar_set_document (self, g_value_get_object (value));
      break;
    case PROP_LOOP:
      km_time_bar_set_loop (self, g_value_get_boolean (value));
      break;
    case PROP_PLAYING:
      km_time_bar_set_playing (self, g_value_get_boolean (value));
      break;
    case PROP_SPEED:
      km_time_bar_set_speed (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* A bin of the template's box (measure, size_allocate). */
static GtkSizeRequestMode
km_time_bar_get_request_mode (GtkWidget *widget)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  return child != NULL ? gtk_widget_get_request_mode (child) : GTK_SIZE_REQUEST_CONSTANT_SIZE;
}

static void
km_time_bar_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  *minimum = *natural = 0;
  if (child != NULL && gtk_widget_should_layout (child))
    gtk_widget_measure (child, orientation, for_size, minimum, natural, minimum_baseline,
                        natural_baseline);
}

/* As a bin, then the frame text that fits the label's new width (fit_label_text()). */
static void
km_time_bar_size_allocate (GtkWidget *widget,
                           int        width,
                           int        height,
                           int        baseline)
{
  KmTimeBar *self = KM_TIME_BAR (widget);
  GtkWidget *child = gtk_widget_get_first_child (widget);

  if (child != NULL && gtk_widget_should_layout (child))
    gtk_widget_allocate (child, width, height, baseline, NULL);
  if (self->frame_label != NULL)
    fit_label_text (self);
}

/* Another font (or size): the frame text is measured again. */
static void
km_time_bar_css_changed (GtkWidget         *widget,
                         GtkCssStyleChange *change)
{
  KmTimeBar *self = KM_TIME_BAR (widget);

  GTK_WIDGET_CLASS (km_time_bar_parent_class)->css_changed (widget, change);
  g_clear_pointer (&self->widest_text, g_free);
  if (self->frame_label != NULL)
    update_label (self);
}

static void
km_time_bar_class_init (KmTimeBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_time_bar_dispose;
  object_class->get_property = km_time_bar_get_property;
  object_class->set_property = km_time_bar_set_property;

  widget_class->root = km_time_bar_root;
  widget_class->unroot = km_time_bar_unroot;
  widget_class->css_changed = km_time_bar_css_changed;
  widget_class->get_request_mode = km_time_bar_get_request_mode;
  widget_class->measure = km_time_bar_measure;
  widget_class->size_allocate = km_time_bar_size_allocate;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOOP] =
    g_param_spec_boolean ("loop", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PLAYING] =
    g_param_spec_boolean ("playing", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Playback speed: 1 plays at the document's frame rate. */
  properties[PROP_SPEED] =
    g_param_spec_double ("speed", NULL, NULL, MIN_SPEED, MAX_SPEED, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Whether a keyframe was copied, so Paste Keyframe has something to paste. */
  properties[PROP_HAS_CLIPBOARD] =
    g_param_spec_boolean ("has-clipboard", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-time-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, adjustment);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, frame_label);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, keyframe_strip);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, play_button);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, scale);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, set_keyframe_button);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, speed_button);
  gtk_widget_class_bind_template_callback (widget_class, adjustment_value_changed_cb);

  gtk_widget_class_install_action (widget_class, "time.toggle-playback", NULL,
                                   toggle_playback_action);
  gtk_widget_class_install_action (widget_class, "time.step-forward", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.step-backward", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.go-to-start", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.go-to-end", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.cancel-solve", NULL, cancel_solve_action);
  gtk_widget_class_install_property_action (widget_class, "time.loop", "loop");
  gtk_widget_class_install_property_action (widget_class, "time.speed", "speed");
  gtk_widget_class_install_action (widget_class, "time.previous-keyframe", NULL,
                                   keyframe_jump_action);
  gtk_widget_class_install_action (widget_class, "time.next-keyframe", NULL,
                                   keyframe_jump_action);
  gtk_widget_class_install_action (widget_class, "time.set-keyframe", NULL, keyframe_edit_action);
  gtk_widget_class_install_action (widget_class, "time.delete-keyframe", NULL,
                                   keyframe_edit_action);
  gtk_widget_class_install_action (widget_class, "time.copy-keyframe", NULL, keyframe_edit_action);
  gtk_widget_class_install_action (widget_class, "time.paste-keyframe", NULL,
                                   keyframe_edit_action);

  gtk_widget_class_set_css_name (widget_class, "timebar");
}

/* Digits of one width: the frame text keeps its width from frame to frame. */
static void
use_tabular_digits (GtkInscription *inscription)
{
  PangoAttrList *attrs = pango_attr_list_new ();

  pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum=1"));
  gtk_inscription_set_attributes (inscription, attrs);
  pango_attr_list_unref (attrs);
}

/* The speed button shows the playback speed ("1×", "0.5×"), whatever set it. */
static void
show_speed (KmTimeBar *self)
{
  /* Translators: the playback speed button's label, a speed factor: "1×", "0.5×" */
  g_autofree char *label = g_strdup_printf (_("%g×"), self->speed);

  gtk_menu_button_set_label (self->speed_button, label);
}

static void
km_time_bar_init (KmTimeBar *self)
{
  GtkGesture *gesture;

  /* Before the template: its loop button and speed menu take their first state from these
   * properties as they are built (a speed of 0 matched no entry of the menu). */
  self->loop = TRUE;
  self->speed = 1.0;
  gtk_widget_init_template (GTK_WIDGET (self));
  show_speed (self);

  self->tick_from = -1;
  self->marks = g_byte_array_new ();
  use_tabular_digits (self->frame_label);
  /* The scale is not focusable (the time bar's keys move it from anywhere), and no Tab stop:
   * GtkRange's focus handler (gtk_widget_focus_self) says it took the focus even where its
   * widget cannot, so Tab stopped at the button before it for good. A widget that cannot
   * focus, nor any child, is passed over. */
  gtk_widget_set_can_focus (GTK_WIDGET (self->scale), FALSE);
  gtk_drawing_area_set_draw_func (self->keyframe_strip, strip_draw_cb, self, NULL);
  g_signal_connect_object (self->keyframe_strip, "query-tooltip",
                           G_CALLBACK (strip_query_tooltip_cb), self, G_CONNECT_SWAPPED);
  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (strip_drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (strip_drag_update_cb), self);
  g_signal_connect_swapped (gesture, "drag-end", G_CALLBACK (strip_drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->keyframe_strip), GTK_EVENT_CONTROLLER (gesture));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "time.paste-keyframe", FALSE);
  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::current-frame",
                                  G_CALLBACK (document_frame_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::n-frames",
                                  G_CALLBACK (document_range_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::timeline-frames",
                                  G_CALLBACK (document_range_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::frame-rate",
                                  G_CALLBACK (update_label), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::targets",
                                  G_CALLBACK (document_targets_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (document_targets_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::solving",
                                  G_CALLBACK (document_solving_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::solve-progress",
                                  G_CALLBACK (document_solving_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::animation",
                                  G_CALLBACK (update_marks), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (update_marks), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::pose-unkeyed",
                                  G_CALLBACK (update_pose_unkeyed), self);
  document_range_changed_cb (self);
  document_targets_changed_cb (self);
  document_solving_changed_cb (self);
}

GtkWidget *
km_time_bar_new (void)
{
  return g_object_new (KM_TYPE_TIME_BAR, NULL);
}

KmDocument *
km_time_bar_get_document (KmTimeBar *self)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), NULL);

  return self->document;
}

void
km_time_bar_set_document (KmTimeBar  *self,
                          KmDocument *document)
{
  g_return_if_fail (KM_IS_TIME_BAR (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;

  km_time_bar_set_playing (self, FALSE);
  g_signal_group_set_target (self->document_signals, document);
  document_range_changed_cb (self);
  document_targets_changed_cb (self);
  document_solving_changed_cb (self);
  update_marks (self);
  update_pose_unkeyed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

gboolean
km_time_bar_get_playing (KmTimeBar *self)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), FALSE);

  return self->tick_id != 0;
}

void
km_time_bar_set_playing (KmTimeBar *self,
                         gboolean   playing)
{
  g_return_if_fail (KM_IS_TIME_BAR (self));

  playing = playing && self->document != NULL && km_document_get_n_frames (self->document) > 1;
  if (playing == (self->tick_id != 0))
    return;

  if (playing)
    {
      guint frame = km_document_get_current_frame (self->document);
      guint first, last;

      /* From the current frame where it lies in the range playback covers; from the
       * range's start again when sitting on its last frame, or outside it. */
      get_play_range (self, &first, &last);
      if (frame < first || frame >= last)
        frame = first;
      self->play_start_frame = frame;
      self->play_start_time = 0;
      self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), playback_tick_cb, NULL, NULL);
    }
  else
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }

  update_play_button (self);
}

gboolean
km_time_bar_get_loop (KmTimeBar *self)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), FALSE);

  return self->loop;
}

void
km_time_bar_set_loop (KmTimeBar *self,
                      gboolean   loop)
{
  g_return_if_fail (KM_IS_TIME_BAR (self));

  loop = !!loop;
  if (self->loop == loop)
    return;

  self->loop = loop;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOOP]);
}

double
km_time_bar_get_speed (KmTimeBar *self)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), 1.0);

  return self->speed;
}

/* Playback speed, clamped to 0.25–4; playing on from the current frame at the new rate. */
void
km_time_bar_set_speed (KmTimeBar *self,
                       double     speed)
{
  g_return_if_fail (KM_IS_TIME_BAR (self));

  if (!isfinite (speed))
    return;
  speed = CLAMP (speed, MIN_SPEED, MAX_SPEED);
  if (self->speed == speed)
    return;

  self->speed = speed;
  if (self->tick_id != 0 && self->document != NULL)
    {
      self->play_start_frame = km_document_get_current_frame (self->document);
      self->play_start_time = 0;
    }
  show_speed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SPEED]);
}

/**
 * km_time_bar_get_keyframe_point:
 * @x: (out): column, in the time bar's coordinates
 * @y: (out): row, in the time bar's coordinates
 *
 * Where the tick of a keyframe at @frame is drawn (tests drag it with real input).
 *
 * Returns: %FALSE when the strip is not laid out
 */
gboolean
km_time_bar_get_keyframe_point (KmTimeBar *self,
                                guint      frame,
                                double    *x,
                                double    *y)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), FALSE);
  g_return_val_if_fail (x != NULL && y != NULL, FALSE);

  return gtk_widget_translate_coordinates (GTK_WIDGET (self->keyframe_strip), GTK_WIDGET (self),
                                           strip_x (self, frame),
                                           gtk_widget_get_height (GTK_WIDGET (self->keyframe_strip))
                                           / 2.0, x, y);
}

/**
 * km_time_bar_get_frame_marks:
 *
 * What the time bar marks at @frame of the solved animation: whether its solve missed the
 * target (a position residual above the IK solver's default tolerance, or an orientation
 * residual above it where km_document_get_solves_orientation()), whether a joint the
 * solve moves (km_document_get_solved_dofs()) sits on one of its limits there, and whether
 * the motion jumps there from the frame before (km_animation_get_jumped()).
 *
 * Returns: the marks, 0 for an unmarked frame or one past the animation
 */
KmTimeBarMarks
km_time_bar_get_frame_marks (KmTimeBar *self,
                             guint      frame)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), 0);

  return frame < self->marks->len ? self->marks->data[frame] : 0;
}

/* Whether a keyframe was copied (time.copy-keyframe) that time.paste-keyframe can paste. */
gboolean
km_time_bar_get_has_clipboard (KmTimeBar *self)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), FALSE);

  return self->has_clipboard;
}

/* How many frames carry a mark. */
guint
km_time_bar_get_n_marked_frames (KmTimeBar *self)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), 0);

  return self->n_marked;
}

/* The strip under the slider that shows keyframes and marks (tests read its pixels). */
GtkWidget *
km_time_bar_get_strip (KmTimeBar *self)
{
  g_return_val_if_fail (KM_IS_TIME_BAR (self), NULL);

  return GTK_WIDGET (self->keyframe_strip);
}
