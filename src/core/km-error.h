/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Every loader reports a rejected file as one GError in KM_PARSE_ERROR whose message is
 * "FILE:LINE:COLUMN: what was expected" (DESIGN.md, "Error locations"): the path as given
 * (km_parse_shown_file()), 1-based line and column in characters of the first character of the offending value.
 * Inside an included file, the innermost file comes first, then "included from ..." lines
 * (km_parse_error_add_include).
 */
#define KM_PARSE_ERROR (km_parse_error_quark ())

typedef enum
{
  KM_PARSE_ERROR_SYNTAX,      /* not well-formed JSON / YAML / XML */
  KM_PARSE_ERROR_INVALID,     /* well-formed but breaks a rule of the format */
  KM_PARSE_ERROR_LIMIT,       /* too deep, too large, too many */
  KM_PARSE_ERROR_IO,          /* could not be read */
  KM_PARSE_ERROR_UNKNOWN,     /* not a format we know */
} KmParseError;

typedef struct
{
  guint line;    /* 1-based; 0 = unknown */
  guint column;  /* 1-based, in characters */
} KmSourcePos;

GQuark      km_parse_error_quark        (void);
void        km_parse_error_set          (GError     **error,
                                         KmParseError code,
                                         const char  *file,
                                         KmSourcePos  pos,
                                         const char  *format,
                                         ...) G_GNUC_PRINTF (5, 6);
void        km_parse_error_add_include  (GError     **error,
                                         const char  *file,
                                         KmSourcePos  pos);
/* The same, unless the error is located in @file itself (its first line starts with
 * "FILE:"): for a loader whose failure may come from the including file or from inside. */
void        km_parse_error_add_include_from (GError     **error,
                                         const char  *file,
                                         KmSourcePos  pos);
/* @file (a path as the user gave it) as every location shows it: the FILE of
 * "FILE:LINE:COLUMN: ", "FILE: " and "included from FILE:…", and of any other message
 * that names a file. A name with a control character, a backslash, a Unicode line break
 * or a byte that is not UTF-8 is escaped C-style as km_format_append_value() escapes it
 * (README, kinema-cli), so that a message's first line stays one line of UTF-8; a
 * `key=value` line's value (km_format_append_field()) is escaped the same way and has its
 * spaces as \x20 as well, so a script matches a location to a field by writing spaces so.
 * Any other name is shown as it is (colons and spaces too: km_parse_read_location() finds
 * the location's end). */
char       *km_parse_shown_file         (const char  *file);
/* "FILE:LINE:COLUMN" (line 0: "FILE"), FILE shown as above. */
char       *km_parse_location           (const char  *file,
                                         KmSourcePos  pos);
/* Reads back a location as km_parse_location() writes it, at the start of @text (a
 * message, or what follows "included from "): the first "FILE:LINE:COLUMN" on @text's
 * first line that a ": ", the line's end or the text's end follows, else "FILE: " (line
 * 0). @file (nullable): FILE unescaped, the path as given, non-UTF-8 bytes included;
 * @rest (nullable): what follows the location and its ": " (or the line end). FALSE, the
 * outputs untouched, when @text starts with no location or FILE is not escaped as
 * km_parse_shown_file() escapes. A name with ": " in it reads back only when located. */
gboolean    km_parse_read_location      (const char  *text,
                                         char       **file,
                                         KmSourcePos *pos,
                                         const char **rest);
/* The same for a message about @file (a path as the user gave it), by a caller that
 * knows the file: only a location whose FILE reads back to @file counts, so that a name
 * holding ":3:4: " or ": " reads back whole, located or not. FALSE, the outputs
 * untouched, when @text does not start with a location in @file. */
gboolean    km_parse_read_location_of   (const char  *text,
                                         const char  *file,
                                         KmSourcePos *pos,
                                         const char **rest);
/* Prefixes an error from code that knows no file (a mesh built from a file's numbers)
 * with "FILE:LINE:COLUMN: ". */
void        km_parse_error_prefix       (GError     **error,
                                         const char  *file,
                                         KmSourcePos  pos);
/* The path of a file that @including (a path as the user gave it) names by @reference
 * (relative to @including's folder, or absolute), as the user would write it in messages:
 * "b.body" for a file next to "a.body", "dir/b.body" next to "dir/a.body", @reference
 * itself when absolute. Valid for opening too (relative to the same working folder). */
char       *km_parse_included_path      (const char  *including,
                                         const char  *reference);

/* "../…" from the canonical absolute folder @dir to the canonical absolute path
 * @absolute, when the two share at least @min_common leading folders (1: any but the
 * root), checked on the file system (through a symbolic link "../" climbs elsewhere);
 * else NULL. @n_common: how many they share. For writers that keep references portable. */
char       *km_path_climbing            (const char  *dir,
                                         const char  *absolute,
                                         guint        min_common,
                                         guint       *n_common);

/*
 * Non-fatal problems in a file that a loader accepts ("unknown key “x” ignored"), as
 * "FILE:LINE:COLUMN: message" strings. Loaders call km_parse_warning; a front end that
 * wants them wraps the load in km_parse_warnings_push/pop (per thread, nestable): the CLI
 * prints them on stderr, the GUI shows them in its message view. With no handler pushed
 * they go to g_message (never g_warning: tests run with fatal warnings).
 */
typedef void (*KmParseWarningFunc)      (const char  *message,
                                         gpointer     user_data);

void        km_parse_warning            (const char  *file,
                                         KmSourcePos  pos,
                                         const char  *format,
                                         ...) G_GNUC_PRINTF (3, 4);
void        km_parse_warnings_push      (KmParseWarningFunc func,
                                         gpointer     user_data);
void        km_parse_warnings_pop       (void);

G_END_DECLS
