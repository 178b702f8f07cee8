/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* What a number field holds, for the units a typed number may carry ("0.5 m", "30°"). */
typedef enum
{
  KM_QUANTITY_NONE,    /* a plain number, or one in the field's own unit only */
  KM_QUANTITY_ANGLE,
  KM_QUANTITY_LENGTH,
} KmQuantity;

/* A typed text was refused, for @reason (translated); the field shows its value again. Also
 * a typed number out of range, set to the nearest end of it (the reason says so). */
typedef void     (*KmNumberFieldRefused) (GtkSpinButton *spin,
                                          const char    *reason,
                                          gpointer       user_data);
/* The user changed the field's text (typing, pasting, deleting): not the field itself
 * showing a value. */
typedef void     (*KmNumberFieldTyped)   (GtkSpinButton *spin,
                                          gpointer       user_data);
/* Special values: the text for @value (NULL: the number), and the value of a word. */
typedef char    *(*KmNumberFieldFormat)  (GtkSpinButton *spin,
                                          double         value);
typedef gboolean (*KmNumberFieldWord)    (GtkSpinButton *spin,
                                          const char    *text,
                                          double        *value);

void     km_number_field_attach   (GtkSpinButton        *spin,
                                   KmNumberFieldRefused  refused,
                                   KmNumberFieldTyped    typed,
                                   gpointer              user_data);
void     km_number_field_set_unit (GtkSpinButton        *spin,
                                   KmQuantity            quantity,
                                   double                scale,
                                   const char           *symbol);
void     km_number_field_set_name (GtkSpinButton        *spin,
                                   const char           *name);
void     km_number_field_set_open (GtkSpinButton        *spin,
                                   gboolean              open);
void     km_number_field_set_words (GtkSpinButton       *spin,
                                    KmNumberFieldFormat  format,
                                    KmNumberFieldWord    word);
gboolean km_number_field_parse    (const char           *text,
                                   KmQuantity            quantity,
                                   double                scale,
                                   const char           *symbol,
                                   double               *shown,
                                   char                **reason);
double   km_number_field_shown_value (double             value,
                                      guint              digits);
/* Commits the typed text of the focused number field in @widget's window (Set Keyframe). */
GtkSpinButton *
         km_number_field_commit_focus (GtkWidget           *widget);

G_END_DECLS
