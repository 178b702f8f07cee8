/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-message"

#include "config.h"

#include <glib/gi18n.h>

#include "km-message.h"

struct _KmMessage
{
  GObject         parent_instance;

  GLogLevelFlags  level;
  char           *text;
  GDateTime      *time;
};

enum {
  PROP_0,
  PROP_LEVEL_NAME,
  PROP_TEXT,
  PROP_TIME_STRING,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmMessage, km_message, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];

static void
km_message_finalize (GObject *object)
{
  KmMessage *self = (KmMessage *) object;

  g_clear_pointer (&self->text, g_free);
  g_clear_pointer (&self->time, g_date_time_unref);

  G_OBJECT_CLASS (km_message_parent_class)->finalize (object);
}

static void
km_message_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  KmMessage *self = KM_MESSAGE (object);

  switch (prop_id)
    {
    case PROP_LEVEL_NAME:
      g_value_set_string (value, km_message_get_level_name (self));
      break;

    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;

    case PROP_TIME_STRING:
      g_value_take_string (value, km_message_format_time (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_message_class_init (KmMessageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = km_message_finalize;
  object_class->get_property = km_message_get_property;

  /* Read-only, for the rows of the message view's list factory. */
  properties[PROP_LEVEL_NAME] =
    g_param_spec_string ("level-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TEXT] =
    g_param_spec_string ("text", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TIME_STRING] =
    g_param_spec_string ("time-string", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
km_message_init (KmMessage *self)
{
}

KmMessage *
km_message_new (GLogLevelFlags  level,
                const char     *text)
{
  KmMessage *self;

  g_return_val_if_fail (text != NULL, NULL);

  self = g_object_new (KM_TYPE_MESSAGE, NULL);
  self->level = level & G_LOG_LEVEL_MASK;
  self->text = g_utf8_make_valid (text, -1);
  self->time = g_date_time_new_now_local ();
  return self;
}

GLogLevelFlags
km_message_get_level (KmMessage *self)
{
  g_return_val_if_fail (KM_IS_MESSAGE (self), 0);

  return self->level;
}

const char *
km_message_get_text (KmMessage *self)
{
  g_return_val_if_fail (KM_IS_MESSAGE (self), NULL);

  return self->text;
}

GDateTime *
km_message_get_time (KmMessage *self)
{
  g_return_val_if_fail (KM_IS_MESSAGE (self), NULL);

  return self->time;
}

const char *
km_message_get_level_name (KmMessage *self)
{
  g_return_val_if_fail (KM_IS_MESSAGE (self), NULL);

  if (self->level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    return C_("message severity", "Error");
  if (self->level & G_LOG_LEVEL_WARNING)
    return C_("message severity", "Warning");
  return C_("message severity", "Info");
}

char *
km_message_format_time (KmMessage *self)
{
  g_return_val_if_fail (KM_IS_MESSAGE (self), NULL);

  return g_date_time_format (self->time, "%H:%M:%S");
}

/* The line the message view copies to the clipboard. */
char *
km_message_to_string (KmMessage *self)
{
  g_autofree char *time = NULL;

  g_return_val_if_fail (KM_IS_MESSAGE (self), NULL);

  time = km_message_format_time (self);
  return g_strdup_printf ("%s %s: %s", time, km_message_get_level_name (self), self->text);
}
