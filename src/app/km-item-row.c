/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-item-row"

#include "config.h"

#include <glib/gi18n.h>

#include "km-item-row.h"
#include "km-body-item.h"
#include "km-folder-item.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-pose-seq-item.h"
#include "km-sub-project-item.h"
#include "km-unknown-item.h"
#include "km-world-item.h"

struct _KmItemRow
{
  GObject     parent_instance;

  /* Owned */
  KmItem     *item;
  char       *name;
  char       *tooltip;    /* the last one built (km_item_row_get_tooltip) */
  GListStore *children;   /* the joint rows a joint's row lists (the item tree's
                           * joint_lists); NULL for an item's row */

  /* Borrowed (static strings) */
  const char *icon_name;

  gboolean    checked;
  int         joint;      /* a joint of the body item's skeleton, or -1 for the item */
};

enum {
  PROP_0,
  PROP_CHECKED,
  PROP_ICON_NAME,
  PROP_IS_ITEM,
  PROP_ITEM,
  PROP_JOINT,
  PROP_KNOWN,
  PROP_NAME,
  PROP_TOOLTIP,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmItemRow, km_item_row, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];

/* Whether @item could not be read (kept verbatim) or its file cannot be used: its row is
 * marked with a warning icon, and its tooltip says why. */
static gboolean
item_failed (KmItem *item)
{
  return km_item_get_problem (item) != NULL
         || (KM_IS_UNKNOWN_ITEM (item)
             && km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (item)));
}

static const char *
icon_for (KmItem *item)
{
  if (item_failed (item))
    return "dialog-warning-symbolic";
  if (KM_IS_WORLD_ITEM (item))
    return "applications-science-symbolic";
  if (KM_IS_BODY_ITEM (item))
    return "system-users-symbolic";
  if (KM_IS_IK_TARGETS_ITEM (item))
    return "find-location-symbolic";
  if (KM_IS_IK_ANIMATION_ITEM (item) || KM_IS_POSE_SEQ_ITEM (item))
    return "media-playback-start-symbolic";
  if (KM_IS_FOLDER_ITEM (item))
    return "folder-symbolic";
  if (KM_IS_SUB_PROJECT_ITEM (item))
    return "document-open-symbolic";
  if (KM_IS_UNKNOWN_ITEM (item))
    return "dialog-question-symbolic";
  return "text-x-generic-symbolic";
}

static char *
joint_tooltip (const char *name,
               KmItem     *body)
{
  /* Translators: a joint's name, then its body's name */
  return g_strdup_printf (_("Joint “%s” of %s"), name, km_item_get_name (body));
}

/* What the row's tooltip says, built when it is asked for (the item tree's query-tooltip):
 * why an item is kept unread or cannot be used, what a pose sequence is, whose joint a
 * joint row is. An item Kinema knows and reads has none (its type's class name is no
 * word for the user). */
static char *
build_tooltip (KmItemRow *self)
{
  const char *problem = km_item_get_problem (self->item);
  char *tooltip = NULL;

  if (self->joint >= 0)
    tooltip = joint_tooltip (self->name, self->item);
  else if (KM_IS_UNKNOWN_ITEM (self->item)
      && km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (self->item)))
    /* Translators: %s/%s is an item type from a project file, such as "Base/RootItem" */
    tooltip = g_strdup_printf (_("%s/%s: this item could not be read (Messages says why). It "
                                 "is kept and saved back unchanged, with the items under it."),
                               km_item_get_plugin_name (self->item),
                               km_item_get_class_name (self->item));
  else if (KM_IS_UNKNOWN_ITEM (self->item))
    /* Translators: %s is an item type from a project file, such as "Body/SimulatorItem" */
    tooltip = g_strdup_printf (_("%s/%s: an item Kinema does not know. It is kept and saved "
                                 "back unchanged."),
                               km_item_get_plugin_name (self->item),
                               km_item_get_class_name (self->item));
  else if (problem != NULL)
    tooltip = g_strdup (problem);
  else if (KM_IS_POSE_SEQ_ITEM (self->item)
           && km_pose_seq_item_get_pose_seq (KM_POSE_SEQ_ITEM (self->item)) != NULL)
    {
      KmPoseSeq *seq = km_pose_seq_item_get_pose_seq (KM_POSE_SEQ_ITEM (self->item));

      /* Translators: a number of key poses and a duration in seconds */
      tooltip = g_strdup_printf (ngettext ("Choreonoid pose sequence: %u key pose, %.3f s. "
                                           "It plays with its body; Kinema does not edit it.",
                                           "Choreonoid pose sequence: %u key poses, %.3f s. "
                                           "It plays with its body; Kinema does not edit it.",
                                           km_pose_seq_get_n_keys (seq)),
                                 km_pose_seq_get_n_keys (seq), km_pose_seq_get_duration (seq));
    }
  return tooltip;
}

static void
item_notify_cb (KmItemRow  *self,
                GParamSpec *pspec,
                KmItem     *item)
{
  if (g_strcmp0 (self->name, km_item_get_name (item)) != 0)
    {
      g_free (self->name);
      self->name = g_strdup (km_item_get_name (item));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
    }
  if (self->checked != km_item_get_checked (item))
    {
      self->checked = km_item_get_checked (item);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKED]);
    }
  if (g_strcmp0 (pspec->name, "problem") == 0)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOOLTIP]);
      if (g_strcmp0 (self->icon_name, icon_for (item)) != 0)
        {
          self->icon_name = icon_for (item);
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ICON_NAME]);
        }
    }
}

static void
km_item_row_dispose (GObject *object)
{
  KmItemRow *self = (KmItemRow *) object;

  g_clear_object (&self->item);
  g_clear_object (&self->children);

  G_OBJECT_CLASS (km_item_row_parent_class)->dispose (object);
}

static void
km_item_row_finalize (GObject *object)
{
  KmItemRow *self = (KmItemRow *) object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->tooltip, g_free);

  G_OBJECT_CLASS (km_item_row_parent_class)->finalize (object);
}

static void
km_item_row_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KmItemRow *self = KM_ITEM_ROW (object);

  switch (prop_id)
    {
    case PROP_CHECKED:
      g_value_set_boolean (value, self->checked);
      break;
    case PROP_ICON_NAME:
      g_value_set_string (value, self->icon_name);
      break;
    case PROP_IS_ITEM:
      g_value_set_boolean (value, self->joint < 0);
      break;
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    case PROP_JOINT:
      g_value_set_int (value, self->joint);
      break;
    case PROP_KNOWN:
      g_value_set_boolean (value, km_item_row_get_known (self));
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_TOOLTIP:
      g_value_set_string (value, km_item_row_get_tooltip (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_item_row_class_init (KmItemRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = km_item_row_dispose;
  object_class->finalize = km_item_row_finalize;
  object_class->get_property = km_item_row_get_property;

  properties[PROP_CHECKED] = g_param_spec_boolean ("is-checked", NULL, NULL, FALSE, ro);
  properties[PROP_ICON_NAME] = g_param_spec_string ("icon-name", NULL, NULL, NULL, ro);
  properties[PROP_IS_ITEM] = g_param_spec_boolean ("is-item", NULL, NULL, TRUE, ro);
  properties[PROP_ITEM] = g_param_spec_object ("item", NULL, NULL, KM_TYPE_ITEM, ro);
  properties[PROP_JOINT] = g_param_spec_int ("joint", NULL, NULL, -1, G_MAXINT, -1, ro);
  properties[PROP_KNOWN] = g_param_spec_boolean ("known", NULL, NULL, TRUE, ro);
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  properties[PROP_TOOLTIP] = g_param_spec_string ("tooltip", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
km_item_row_init (KmItemRow *self)
{
  self->joint = -1;
}

KmItemRow *
km_item_row_new (KmItem *item)
{
  KmItemRow *self;

  g_return_val_if_fail (KM_IS_ITEM (item), NULL);

  self = g_object_new (KM_TYPE_ITEM_ROW, NULL);
  self->item = g_object_ref (item);
  self->name = g_strdup (km_item_get_name (item));
  self->checked = km_item_get_checked (item);
  self->icon_name = icon_for (item);
  g_signal_connect_object (item, "notify", G_CALLBACK (item_notify_cb), self, G_CONNECT_SWAPPED);
  return self;
}

KmItem *
km_item_row_get_item (KmItemRow *self)
{
  g_return_val_if_fail (KM_IS_ITEM_ROW (self), NULL);

  return self->item;
}

const char *
km_item_row_get_icon_name (KmItemRow *self)
{
  g_return_val_if_fail (KM_IS_ITEM_ROW (self), NULL);

  return self->icon_name;
}

/* FALSE for an item Kinema keeps without understanding it (shown greyed). */
gboolean
km_item_row_get_known (KmItemRow *self)
{
  g_return_val_if_fail (KM_IS_ITEM_ROW (self), FALSE);

  return !KM_IS_UNKNOWN_ITEM (self->item);
}

/* The row's tooltip, or NULL for none; built anew at each call (rows are made by the
 * thousand for a large model, their tooltips asked for one at a time), valid until the
 * next. */
const char *
km_item_row_get_tooltip (KmItemRow *self)
{
  g_return_val_if_fail (KM_IS_ITEM_ROW (self), NULL);

  g_free (self->tooltip);
  self->tooltip = build_tooltip (self);
  return self->tooltip;
}

/**
 * km_item_row_new_joint:
 * @body: the body item whose skeleton has the joint
 * @joint: the joint's index in the skeleton
 * @name: the joint's name
 *
 * A row for one joint of a body, listed under the body's row, under a branching joint's
 * row or in its branch's head row (the item tree indents only where the skeleton branches,
 * each branch one row). It is no item of the project (nothing is saved for it):
 * km_item_row_get_item gives the body, km_item_row_get_children the (empty) store of the
 * joint rows listed under it.
 */
KmItemRow *
km_item_row_new_joint (KmItem     *body,
                       int         joint,
                       const char *name)
{
  KmItemRow *self;

  g_return_val_if_fail (KM_IS_ITEM (body), NULL);
  g_return_val_if_fail (joint >= 0, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  self = g_object_new (KM_TYPE_ITEM_ROW, NULL);
  self->item = g_object_ref (body);
  self->joint = joint;
  self->name = g_strdup (name);
  self->children = g_list_store_new (KM_TYPE_ITEM_ROW);
  self->icon_name = "emblem-system-symbolic";
  return self;
}

/* The joint a joint row stands for, -1 for an item's row. */
int
km_item_row_get_joint (KmItemRow *self)
{
  g_return_val_if_fail (KM_IS_ITEM_ROW (self), -1);

  return self->joint;
}

/* A joint keeps its row when edits before it in the skeleton move its index. */
void
km_item_row_set_joint (KmItemRow *self,
                       int        joint)
{
  g_return_if_fail (KM_IS_ITEM_ROW (self));
  g_return_if_fail (self->joint >= 0 && joint >= 0);

  if (self->joint == joint)
    return;
  self->joint = joint;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_JOINT]);
}

/* A renamed joint keeps its row. */
void
km_item_row_set_joint_name (KmItemRow  *self,
                            const char *name)
{
  g_return_if_fail (KM_IS_ITEM_ROW (self));
  g_return_if_fail (self->joint >= 0 && name != NULL);

  if (g_strcmp0 (self->name, name) == 0)
    return;
  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOOLTIP]);
}

/* The rows of a joint row's child joints (element-type KmItemRow), NULL for an item's row. */
GListStore *
km_item_row_get_children (KmItemRow *self)
{
  g_return_val_if_fail (KM_IS_ITEM_ROW (self), NULL);

  return self->children;
}
