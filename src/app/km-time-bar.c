/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-time-bar"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "km-time-bar.h"

/*
 * Playback advances the document's current frame from the frame clock (a tick callback),
 * so it follows the display's real time at the document's frame rate, whatever the monitor
 * refresh; a slow frame skips frames rather than slowing the motion down.
 */

struct _KmTimeBar
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkAdjustment  *adjustment;
  GtkButton      *play_button;
  GtkButton      *cancel_button;
  GtkLabel       *frame_label;
  GtkProgressBar *progress_bar;
  GtkScale       *scale;

  /* Owned */
  KmDocument     *document;
  GSignalGroup   *document_signals;

  /* Borrowed: owned by the root widget while we are rooted */
  GtkEventController *root_keys;

  guint           tick_id;
  gint64          play_start_time;    /* µs, frame clock time of the first tick */
  guint           play_start_frame;
  gboolean        loop;
  gboolean        updating;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_LOOP,
  PROP_PLAYING,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmTimeBar, km_time_bar, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static void
update_label (KmTimeBar *self)
{
  g_autofree char *text = NULL;
  guint frame = 0, n_frames = 1;
  double rate = 30.0;

  if (self->document != NULL)
    {
      frame = km_document_get_current_frame (self->document);
      n_frames = km_document_get_n_frames (self->document);
      rate = km_document_get_frame_rate (self->document);
    }

  /* Translators: current frame, last frame, then the current time in seconds */
  text = g_strdup_printf (_("Frame %u / %u  ·  %.2f s"), frame, n_frames - 1, frame / rate);
  gtk_label_set_text (self->frame_label, text);
}

static void
document_frame_changed_cb (KmTimeBar *self)
{
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

  self->updating = TRUE;
  gtk_adjustment_set_upper (self->adjustment, n_frames - 1);
  self->updating = FALSE;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "time.toggle-playback", n_frames > 1);
  document_frame_changed_cb (self);
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
  guint n_frames, last, frame;
  double elapsed;

  if (self->document == NULL)
    {
      self->tick_id = 0;
      update_play_button (self);
      return G_SOURCE_REMOVE;
    }

  if (self->play_start_time == 0)
    self->play_start_time = now;

  n_frames = km_document_get_n_frames (self->document);
  last = n_frames - 1;
  elapsed = (now - self->play_start_time) / (double) G_USEC_PER_SEC;
  frame = self->play_start_frame + (guint) floor (elapsed * km_document_get_frame_rate (self->document));

  if (frame > last)
    {
      if (self->loop && n_frames > 1)
        frame %= n_frames;
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
  guint frame, last;

  if (self->document == NULL)
    return;

  km_time_bar_set_playing (self, FALSE);
  frame = km_document_get_current_frame (self->document);
  last = km_document_get_n_frames (self->document) - 1;

  if (g_str_equal (action_name, "time.step-forward"))
    frame = MIN (frame + 1, last);
  else if (g_str_equal (action_name, "time.step-backward"))
    frame = frame > 0 ? frame - 1 : 0;
  else if (g_str_equal (action_name, "time.go-to-start"))
    frame = 0;
  else
    frame = last;
  km_document_set_current_frame (self->document, frame);
}

static void
cancel_solve_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  KmTimeBar *self = KM_TIME_BAR (widget);

  if (self->document != NULL)
    km_document_cancel_solve (self->document);
}

static gboolean
root_key_cb (GtkWidget *root,
             GVariant  *args,
             gpointer   user_data)
{
  return gtk_widget_activate_action (GTK_WIDGET (user_data), g_variant_get_string (args, NULL),
                                     NULL);
}

/*
 * Playback keys work wherever the keyboard focus is in the window, unless the focused widget
 * uses the key itself (a slider its arrows, a button Space). GTK 4.8 ignores global and
 * managed shortcut scopes on a descendant, so the time bar puts a local controller on its
 * root, in the bubble phase, and takes it away again when it leaves.
 */
static void
km_time_bar_root (GtkWidget *widget)
{
  static const struct
  {
    guint       keyval;
    const char *action;
  } keys[] = {
    { GDK_KEY_space, "time.toggle-playback" },
    { GDK_KEY_Right, "time.step-forward" },
    { GDK_KEY_Left, "time.step-backward" },
    { GDK_KEY_Home, "time.go-to-start" },
    { GDK_KEY_End, "time.go-to-end" },
  };
  KmTimeBar *self = KM_TIME_BAR (widget);

  GTK_WIDGET_CLASS (km_time_bar_parent_class)->root (widget);

  self->root_keys = gtk_shortcut_controller_new ();
  gtk_event_controller_set_name (self->root_keys, "km-time-bar-keys");
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].keyval, 0),
                                                gtk_callback_action_new (root_key_cb, self, NULL));

      gtk_shortcut_set_arguments (shortcut, g_variant_new_string (keys[i].action));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (self->root_keys), shortcut);
    }
  gtk_widget_add_controller (GTK_WIDGET (gtk_widget_get_root (widget)), self->root_keys);
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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
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

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOOP] =
    g_param_spec_boolean ("loop", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PLAYING] =
    g_param_spec_boolean ("playing", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-time-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, adjustment);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, frame_label);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, play_button);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, KmTimeBar, scale);
  gtk_widget_class_bind_template_callback (widget_class, adjustment_value_changed_cb);

  gtk_widget_class_install_action (widget_class, "time.toggle-playback", NULL,
                                   toggle_playback_action);
  gtk_widget_class_install_action (widget_class, "time.step-forward", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.step-backward", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.go-to-start", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.go-to-end", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "time.cancel-solve", NULL, cancel_solve_action);
  gtk_widget_class_install_property_action (widget_class, "time.loop", "loop");

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "timebar");
}

static void
km_time_bar_init (KmTimeBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->loop = TRUE;
  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::current-frame",
                                  G_CALLBACK (document_frame_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::n-frames",
                                  G_CALLBACK (document_range_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::frame-rate",
                                  G_CALLBACK (update_label), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::solving",
                                  G_CALLBACK (document_solving_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::solve-progress",
                                  G_CALLBACK (document_solving_changed_cb), self);
  document_range_changed_cb (self);
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
  document_solving_changed_cb (self);
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

      /* Play from the start again when sitting on the last frame. */
      if (frame + 1 >= km_document_get_n_frames (self->document))
        frame = 0;
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
