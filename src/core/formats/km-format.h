/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * The one loader registry (DESIGN.md, "Model loaders"). Every file format is one KmFormat
 * table in its own file plus one row in km-format.c; nothing above the registry knows the
 * individual formats. A file's type comes from its content (sniff), not from its name,
 * unless the caller names a format (a name only keeps a .json file's JSON-looking text
 * JSON: km_format_detect_for_path()).
 */

/* km_format_load_file reads at most this much; a larger file is rejected unread. */
#define KM_FORMAT_MAX_FILE_SIZE ((gsize) 256 * 1024 * 1024)

typedef enum
{
  KM_FILE_KIND_MODEL,       /* load returns a KmSkeleton * */
  KM_FILE_KIND_TARGETS,     /* load returns a KmTargetTrack * */
  KM_FILE_KIND_ANIMATION,   /* load returns a KmAnimation * */
  KM_FILE_KIND_PROJECT,     /* load returns a KmProject * */
  KM_FILE_KIND_POSE_SEQ,    /* load returns a KmPoseSeq * */
  KM_FILE_KIND_BODY_MOTION, /* load returns a KmBodyMotion * */
} KmFileKind;

typedef struct _KmFormat KmFormat;

/*
 * What a model file defines beside its skeleton (km_format_load_model_file): things that
 * become items of their own next to the body item.
 */
typedef struct
{
  /* KmTargetTrack *: IK targets the model defines (Scenebuilder <ik>), one track per
   * target, its effector named, one keyframe at frame 0 holding the effector joint's frame
   * at the initial target pose. */
  GPtrArray *targets;
  /* char *: the targets' names in the file, parallel to @targets. */
  GPtrArray *target_names;
  /* The pose the file states for the model (a scene's joint pos values): @n_initial_q DOF
   * values in radians and metres, in the skeleton's DOF order, linked (mimic) joints
   * following their masters; NULL (and 0) when the file states none, that is the zero
   * pose. Any loader may fill it; importing the model gives the body this joint state. */
  double    *initial_q;
  guint      n_initial_q;
  /* The text the model was read from (UTF-8: a UTF-16 file's converted), when it is at
   * most KM_MODEL_TEXT_KEEP_MAX bytes, else NULL (immutable, shared): what a save that
   * finds the file gone (deleted by another program since) writes the edited model over,
   * keeping what Kinema does not model (km_body_save_over_text, km_urdf_save_over_text,
   * km_skeleton_json_save_over_text). Filled by km_format_load_model_file_full(). */
  GBytes    *text;
  /* The km_format_file_checksum() of the bytes the model was read from, as they were read
   * (a UTF-16 file's before its conversion, a file of any size): what the file held when
   * it was read, which a save compares the file with to tell another program's change
   * made since. Filled by km_format_load_model_file_full(). */
  char      *checksum;
} KmModelExtras;

/* The largest model text KmModelExtras.text keeps (its meshes are other files, not kept). */
#define KM_MODEL_TEXT_KEEP_MAX ((gsize) 64 * 1024 * 1024)

struct _KmFormat
{
  /* Stable, never translated: the `format` value in projects and the --format argument,
   * e.g. "SKELETON-JSON", "KINEMA-TARGETS-JSON", "CHOREONOID-BODY". */
  const char *name;
  KmFileKind  kind;
  /* N_() marked; translate at the point of use. */
  const char *description;
  /* 0 = certainly not this format … 100 = certainly this format. Looks at content only. */
  int       (*sniff)       (const char *data,
                            gsize       length);
  /* @path is the path as given (for messages and relative references). */
  gpointer  (*load)        (const char *path,
                            GBytes     *contents,
                            GError    **error);
  void      (*free_result) (gpointer    result);
  /* Appends `kinema-cli info` output: detail lines, then the one summary line. */
  void      (*describe)    (gpointer    result,
                            GString    *out);
  /* Optional, KM_FILE_KIND_MODEL only: like load, and also appends to @extras (whose
   * arrays exist on entry) what the file defines beside the skeleton. Formats without it
   * define nothing beside the skeleton. */
  gpointer  (*load_model)  (const char     *path,
                            GBytes         *contents,
                            KmModelExtras  *extras,
                            GError        **error);
};

/* Whether @given (what a user typed: --format, --to) names the format called @name: ASCII
 * case is ignored, as everywhere a format is named. */
gboolean         km_format_name_matches  (const char       *name,
                                          const char       *given);
/* By name (km_format_name_matches()); NULL when unknown. */
const KmFormat  *km_format_lookup        (const char       *name);
/* The highest-scoring format, NULL when every sniff says 0 (ties: the earlier row). Text
 * no sniffer claims is looked at more closely: XML by its document element's name, other
 * text as the YAML it may be (flow style, strict JSON), which is parsed for that. */
const KmFormat  *km_format_detect        (const char       *data,
                                          gsize             length);
/* The same for the contents of @path (nullable: content only): text that starts like
 * JSON in a file named .json is taken for JSON alone, never re-read as YAML. */
const KmFormat  *km_format_detect_for_path (const char     *path,
                                          const char       *data,
                                          gsize             length);
const KmFormat * const *km_format_list   (guint            *n_formats);
/* What an unrecognised file looks like, translated ("binary data", "an XML document with
 * root element <robot>", …), for "not a known format" messages. */
char            *km_format_guess_description (const char  *data,
                                          gsize             length);
/* "A, B, C": every format name, for messages. */
char            *km_format_list_names    (void);
/* Reads at most @max_size bytes of @path (error KM_PARSE_ERROR_LIMIT when larger, IO when
 * unreadable). Every loader that reads a file itself uses it, so no file (not /dev/zero
 * or a pipe either) is read without bound. */
GBytes          *km_format_read_file     (const char       *path,
                                          gsize             max_size,
                                          GError          **error);
/* km_format_read_file() with its errors located at @path:1:1, as for a whole file (the
 * loaders' own errors name a place in it): "FILE:1:1: the file is larger than …". */
GBytes          *km_format_read_whole_file (const char     *path,
                                          gsize             max_size,
                                          GError          **error);
/* How long kinema-cli waits for a writer to a named pipe that has none
 * (KmFormatLoadOptions.fifo_wait_s), and for a reader of one it is to write
 * (km_format_set_fifo_save_wait()). */
#define KM_FORMAT_FIFO_WAIT_S 10
/* How long a save (km_format_save_data_full()) to a named pipe that has no reader waits
 * for one, in seconds, in this process: 0 (the default) refuses it at once, “PATH: cannot
 * write the file: a pipe with no reader”, since the editor saves on its main thread and
 * must never wait; kinema-cli sets KM_FORMAT_FIFO_WAIT_S (`convert m.body p &
 * consumer < p`), then says “(none came within N seconds)”. A pipe with a reader
 * (`-o >(cat)`) is written at once, whatever the setting. */
void             km_format_set_fifo_save_wait (guint           seconds);
/* The SHA-256 (hex) of what @file holds, read in chunks; NULL with a GIO error
 * (G_IO_ERROR_NOT_FOUND: there is none). The bytes, not the file's time: a `touch`, or the
 * same bytes written again, is no change. */
char            *km_format_file_checksum (GFile            *file,
                                          GCancellable     *cancellable,
                                          GError          **error);
/* Writes @text to @path atomically and durably (temporary file, fsync, rename: DESIGN.md).
 * A file that is there keeps its permission bits (and owner, where allowed); a new one
 * gets 0666 before the umask. A symbolic link stays a link: the file it leads to is the
 * one replaced. A failed save leaves the old file as it was and no temporary file. */
gboolean         km_format_save_text     (const char       *path,
                                          const char       *text,
                                          GError          **error);
/* The same for @length bytes (-1: up to the NUL); errors “PATH: cannot write the file:
 * REASON” (G_FILE_ERROR; PATH as km_parse_shown_file() shows it). Not atomic where there is nothing to replace: the file standard
 * output goes to (/dev/stdout, by any name) is written at its position through stdout,
 * and a pipe, terminal or device (/dev/stderr, /dev/null) in place (a named pipe without
 * a reader: km_format_set_fifo_save_wait()). */
gboolean         km_format_save_data     (const char       *path,
                                          const char       *data,
                                          gssize            length,
                                          GError          **error);
/* The same, @new_mode (before the umask) for a file that is not there yet: 0600 for a
 * private one (an autosave). Every atomic write goes through this one. */
gboolean         km_format_save_data_full (const char      *path,
                                          const char       *data,
                                          gssize            length,
                                          int               new_mode,
                                          GError          **error);
/* A streamed save: what a writer hands a KmFormatSink in pieces is gathered into a buffer
 * of KM_FORMAT_SINK_BUFFER_SIZE bytes, which goes to the file each time it is full, so
 * that no caller builds the whole file text in one string. */
typedef struct _KmFormatSink KmFormatSink;
#define KM_FORMAT_SINK_BUFFER_SIZE (64 * 1024)
/* Where a sink's buffer goes: @length bytes, at most KM_FORMAT_SINK_BUFFER_SIZE; FALSE
 * (errno set) when they could not be written. */
typedef gboolean (*KmFormatFlushFunc) (const char *data,
                                       gsize       length,
                                       gpointer    user_data);
/* Writes the file's text to @sink. FALSE with @error set for a failure of its own (the
 * save then fails with that error); a failed write to the sink needs no error (the save
 * fails with the sink's). */
typedef gboolean (*KmFormatWriteFunc) (KmFormatSink *sink,
                                       gpointer      user_data,
                                       GError      **error);
/* A sink whose full buffers go to @flush (km_yaml_emit_to_string() and tests): free it with
 * km_format_sink_free(), which flushes what is left. */
KmFormatSink    *km_format_sink_new      (KmFormatFlushFunc flush,
                                          gpointer          user_data);
/* Flushes what the buffer holds; FALSE when this or an earlier flush failed. */
gboolean         km_format_sink_free     (KmFormatSink     *sink);
/* Appends @length bytes (-1: up to the NUL). FALSE once a flush has failed: nothing more
 * is written, and the save fails (a writer may go on; it need not check each call). */
gboolean         km_format_sink_write    (KmFormatSink     *sink,
                                          const char       *data,
                                          gssize            length);
/* Whether a flush of @sink has failed. */
gboolean         km_format_sink_failed   (KmFormatSink     *sink);
/* km_format_save_data_full() of the text @write writes to a sink: the same file handling
 * (temporary file beside the target, renamed; links followed; standard output, pipes and
 * devices written in place), permissions and messages. When @write or a write fails, the
 * old file is left as it was and no temporary file. */
gboolean         km_format_save_stream   (const char       *path,
                                          int               new_mode,
                                          KmFormatWriteFunc write,
                                          gpointer          user_data,
                                          GError          **error);
/* Whether km_format_save_stream() writes @path in place (standard output, a pipe, a
 * terminal, a device): what is written there stays, also when the save then fails. */
gboolean         km_format_save_writes_in_place (const char *path);
/* Puts the file @written (complete, synced, beside @path) in place of @path as
 * km_format_save_data() would: the old file's permissions, through symbolic links. On
 * failure @written is left for the caller to remove; the error names @path. */
gboolean         km_format_replace_file  (const char       *written,
                                          const char       *path,
                                          GError          **error);
/* The temporary files of saves under way (the atomic write's "NAME.XXXXXX"), which a
 * signal that ends the program removes: km_format_save_stream() registers its own; another
 * writer of a temporary file may register it (a slot, -1 when all are taken or @path is too
 * long) and must unregister it (-1: nothing) once it is renamed or removed. */
int              km_format_register_temporary   (const char *path);
void             km_format_unregister_temporary (int         slot);
/* Unlinks every registered temporary file (each once); the number removed. Only atomics
 * and unlink(2): callable from a signal handler. */
guint            km_format_remove_temporary_files (void);
/* Installs a handler (sigaction) for @signum that removes the registered temporary files,
 * then ends the program by @signum's default action, raised again (the exit status says
 * the signal, as after no handler): for SIGINT, SIGTERM, SIGHUP. */
void             km_format_remove_temporary_files_on_signal (int signum);
/* The limit of what Kinema reads back that a file to be written would exceed. */
typedef enum
{
  KM_FORMAT_LIMIT_FRAMES,   /* frames */
  KM_FORMAT_LIMIT_VALUES,   /* the reader's values (JSON values, YAML numbers and lists) */
  KM_FORMAT_LIMIT_BYTES,    /* bytes (said in MiB) */
} KmFormatLimit;
/* For the motion writers' size checks (km_animation_json_check_size(),
 * km_body_motion_check_size()) and saves: sets @error (KM_PARSE_ERROR_LIMIT, unlocated)
 * "an animation of N frames for this model would be larger than Kinema reads back (at
 * most MAX values)", naming the one @limit exceeded and its value @max. @kind:
 * KM_FILE_KIND_ANIMATION or KM_FILE_KIND_BODY_MOTION. */
void             km_format_set_save_limit_error (GError    **error,
                                          KmFileKind        kind,
                                          guint64           n_frames,
                                          KmFormatLimit     limit,
                                          guint64           max);
/* For writers that lose something on the way: appends a printf-formatted note to @notes
 * (nullable: then nothing). */
void             km_format_note          (GPtrArray        *notes,
                                          const char       *format,
                                          ...) G_GNUC_PRINTF (2, 3);
/* For a name that a message shows (a file, a joint, a link, a target): appends @value so
 * that the message stays one line, written C-style where it would not: \\ \t \n \r, \xHH
 * for the other control characters and for each byte that is not part of valid UTF-8,
 * \uHHHH for the Unicode line breaks (U+0085, U+2028, U+2029); a space stays a space.
 * km_parse_read_location() reads it back. */
void             km_format_append_value  (GString          *out,
                                          const char       *value);
/* For the VALUE of a `key=value` line (describe functions, the CLI's result lines): as
 * km_format_append_value(), and a space as \x20, so that the line also splits on spaces
 * (`info`'s `joint=left\x20arm type=…`). Reads back as km_format_append_value()'s text
 * does (\x20 is one of its \xHH escapes): exactly to @value. */
void             km_format_append_field  (GString          *out,
                                          const char       *value);
/* km_format_append_field() of @value in a new string. */
char            *km_format_dup_field     (const char       *value);
/* For a whole message text that may quote names as they are (a writer's note): its control
 * characters, Unicode line breaks and bytes that are not UTF-8 escaped as
 * km_format_append_value() escapes them, so that it prints as one line; a backslash stays
 * as it is (a name in it may have been escaped already). */
void             km_format_append_one_line (GString        *out,
                                          const char       *text);
/* A reader's factor from degrees to radians (a .body file's angles are read as
 * value × KM_FORMAT_RADIANS_PER_DEGREE): writers of degrees write for it
 * (km_format_scaled_number). */
#define KM_FORMAT_RADIANS_PER_DEGREE (G_PI / 180.0)
/* For writers of a value in another unit than its reader's (an angle written in degrees):
 * the shortest decimal text, as km_yaml_format_number() writes numbers ("45", "1e-09",
 * ".inf"), of a number that a reader multiplying it by @scale (as value × @scale in
 * doubles; KM_FORMAT_RADIANS_PER_DEGREE for degrees) takes back to exactly @value. When
 * no double does (about one radian value in ten between 0.56 and 1, 1.12 and 2, 2.23
 * and 4, … has no degree double that gives it), the one taken nearest to @value.
 * @buffer: at least G_ASCII_DTOSTR_BUF_SIZE bytes. */
void             km_format_scaled_number (double            value,
                                          double            scale,
                                          char             *buffer,
                                          gsize             buffer_size);
/*
 * How a load reads its files (km_format_load_model_file_full()), as its caller asks; all
 * zero is the default, what the editor loads with. It holds for every file the load
 * reads, down to imports, sub-projects and meshes, on the thread of the call and only
 * during it.
 */
typedef struct
{
  /* How long a read of a named pipe with no writer waits for one, in seconds: 0 (the
   * default) refuses it at once as "a pipe with no writer", since the editor reads files on
   * its main thread (Reload) and must never wait; kinema-cli passes KM_FORMAT_FIFO_WAIT_S
   * (`validate p & producer > p`). */
  guint fifo_wait_s;
} KmFormatLoadOptions;

/*
 * Reads @path (at most KM_FORMAT_MAX_FILE_SIZE bytes), picks the format named
 * @format_name (nullable: detect from content) and loads it. @format (out, optional)
 * receives the format used. Errors are KM_PARSE_ERROR: IO, LIMIT, UNKNOWN (unknown format
 * name, or content no format recognises) or the loader's own.
 * Returns: (transfer full): the format's result, free it with format->free_result
 */
gpointer         km_format_load_file     (const char       *path,
                                          const char       *format_name,
                                          const KmFormat  **format,
                                          GError          **error);
/*
 * km_format_load_file(), and for a model also what the file defines beside the skeleton:
 * @extras (out, optional) receives a new KmModelExtras (empty arrays for other formats
 * and other kinds) when the load succeeds.
 */
gpointer         km_format_load_model_file (const char     *path,
                                          const char       *format_name,
                                          const KmFormat  **format,
                                          KmModelExtras   **extras,
                                          GError          **error);
/*
 * km_format_load_model_file() as @options (nullable) say. NULL: as the load this one is
 * part of (a sub-project's model) reads, else the defaults, as km_format_load_file() and
 * km_format_load_model_file() read.
 */
gpointer         km_format_load_model_file_full (const char                *path,
                                                 const char                *format_name,
                                                 const KmFormatLoadOptions *options,
                                                 const KmFormat           **format,
                                                 KmModelExtras            **extras,
                                                 GError                   **error);
KmModelExtras   *km_model_extras_new     (void);
void             km_model_extras_free    (KmModelExtras    *extras);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmModelExtras, km_model_extras_free)

G_END_DECLS
