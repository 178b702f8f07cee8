/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include "km-camera.h"
#include "km-defaults.h"
#include "km-format.h"
#include "km-renderer.h"
#include "km-skeleton.h"
#include "km-target-track.h"

/*
 * The scene view's render path, timed: KmRenderer draws the default project (its skeleton,
 * target and keyed path) and each model given on the command line (e.g. Choreonoid's SR1)
 * into a 1280×720 framebuffer of an EGL surfaceless context (no display server; Mesa's
 * llvmpipe with LIBGL_ALWAYS_SOFTWARE=1), the pose moving every frame as in playback. Each
 * frame ends with glFinish. Prints one line per model:
 *
 *   model=NAME frames=N mean_frame_ms=… p95_frame_ms=… fps=… mean_submit_ms=…
 *
 * (fps = 1000 / mean_frame_ms; mean_submit_ms is the time until the GL calls are issued,
 * the rest is the rasteriser; cpu_frame_ms is the CPU time of every thread of the process,
 * llvmpipe's included, per frame: it does not grow when other processes load the machine,
 * which the wall-clock figures do). Never fails on timing; exits 77 (skipped) without EGL.
 * Options: --frames N (default 120), --size WxH, --dump PREFIX (the last frame of each
 * model as PREFIXMODEL.ppm).
 */

#define WARM_UP_FRAMES 5
#define MAX_TRAJECTORY_POINTS 200

typedef struct
{
  EGLDisplay display;
  EGLContext context;
  GLuint     fbo;
  GLuint     color;
  GLuint     depth;
} Offscreen;

static gboolean
offscreen_init (Offscreen *o,
                int        width,
                int        height,
                GError   **error)
{
  static const EGLint attributes[] = {
    EGL_CONTEXT_MAJOR_VERSION, 3,
    EGL_CONTEXT_MINOR_VERSION, 3,
    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
    EGL_NONE
  };
  EGLint major, minor;

  if (!epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless"))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "EGL_MESA_platform_surfaceless is not available");
      return FALSE;
    }
  o->display = eglGetPlatformDisplayEXT (EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  if (o->display == EGL_NO_DISPLAY || !eglInitialize (o->display, &major, &minor)
      || !eglBindAPI (EGL_OPENGL_API))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "no EGL display (0x%x)", eglGetError ());
      return FALSE;
    }
  o->context = eglCreateContext (o->display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
  if (o->context == EGL_NO_CONTEXT
      || !eglMakeCurrent (o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, o->context))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "no GL 3.3 core context (0x%x)",
                   eglGetError ());
      return FALSE;
    }

  glGenFramebuffers (1, &o->fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, o->fbo);
  glGenRenderbuffers (1, &o->color);
  glBindRenderbuffer (GL_RENDERBUFFER, o->color);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->color);
  glGenRenderbuffers (1, &o->depth);
  glBindRenderbuffer (GL_RENDERBUFFER, o->depth);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                             o->depth);
  if (glCheckFramebufferStatus (GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "incomplete framebuffer");
      return FALSE;
    }
  glViewport (0, 0, width, height);
  return TRUE;
}

static void
offscreen_clear (Offscreen *o)
{
  if (o->context != EGL_NO_CONTEXT)
    {
      glDeleteRenderbuffers (1, &o->color);
      glDeleteRenderbuffers (1, &o->depth);
      glDeleteFramebuffers (1, &o->fbo);
      eglMakeCurrent (o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext (o->display, o->context);
    }
  if (o->display != EGL_NO_DISPLAY)
    eglTerminate (o->display);
}

static char *dump_prefix;

/* Writes the framebuffer as PREFIXNAME.ppm (to compare the pictures of two builds). */
static void
dump_frame (const char *name,
            int         width,
            int         height)
{
  g_autofree guint8 *pixels = g_malloc ((gsize) width * height * 4);
  g_autofree char *path = g_strconcat (dump_prefix, name, ".ppm", NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  glReadPixels (0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  g_string_append_printf (out, "P6\n%d %d\n255\n", width, height);
  for (int y = height - 1; y >= 0; y--)
    for (int x = 0; x < width; x++)
      g_string_append_len (out, (const char *) pixels + ((gsize) y * width + x) * 4, 3);
  if (!g_file_set_contents (path, out->str, out->len, &error))
    g_printerr ("%s\n", error->message);
}

/* CPU time of the whole process (all threads), ms. */
static double
process_cpu_ms (void)
{
  struct timespec t;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1000.0 + t.tv_nsec / 1.0e6;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Frames every joint (and its shapes' joints) in view, as the scene view's fit-all does. */
static void
frame_camera (KmCamera          *camera,
              const KmSkeleton  *skeleton,
              const KmTransform *world)
{
  KmVec3 min = km_vec3 (INFINITY, INFINITY, INFINITY);
  KmVec3 max = km_vec3 (-INFINITY, -INFINITY, -INFINITY);

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      KmVec3 p = world[i].pos;

      min = km_vec3 (MIN (min.x, p.x), MIN (min.y, p.y), MIN (min.z, p.z));
      max = km_vec3 (MAX (max.x, p.x), MAX (max.y, p.y), MAX (max.z, p.z));
    }
  km_camera_reset (camera);
  km_camera_frame_box (camera, min, max, 1.0);
}

static void
bench_model (KmRenderer    *renderer,
             const char    *name,
             KmSkeleton    *skeleton,
             KmTargetTrack *targets,
             int            width,
             int            height,
             guint          n_frames)
{
  guint n_dof = km_skeleton_get_n_dof (skeleton);
  guint n_joints = km_skeleton_get_n_joints (skeleton);
  g_autofree double *rest = g_new0 (double, MAX (n_dof, 1));
  g_autofree double *lower = g_new0 (double, MAX (n_dof, 1));
  g_autofree double *upper = g_new0 (double, MAX (n_dof, 1));
  g_autofree double *q = g_new0 (double, MAX (n_dof, 1));
  g_autofree KmTransform *world = g_new0 (KmTransform, n_joints);
  g_autofree double *times = g_new0 (double, n_frames);
  g_autoptr(GArray) trajectory = g_array_new (FALSE, FALSE, sizeof (KmVec3));
  KmRenderBody body = { skeleton, world };
  KmRenderScene scene = { 0, };
  KmCamera camera;
  double sum = 0.0, submit_sum = 0.0, cpu_start = 0.0, cpu, mean, p95;

  km_skeleton_get_mid_range (skeleton, rest);
  km_skeleton_get_dof_limits (skeleton, lower, upper);
  km_skeleton_forward_kinematics (skeleton, rest, NULL, world);
  frame_camera (&camera, skeleton, world);

  scene.bodies = &body;
  scene.n_bodies = 1;
  scene.skeleton = skeleton;
  scene.joint_world = world;
  scene.selected_joint = -1;
  scene.effector = km_skeleton_get_default_effector (skeleton);
  if (targets != NULL)
    {
      guint first = km_target_track_get_first_frame (targets);
      guint last = km_target_track_get_last_frame (targets);
      double step = MAX (1.0, (double) (last - first) / (MAX_TRAJECTORY_POINTS - 1));
      KmQuat r;

      for (double f = first; ; f += step)
        {
          KmVec3 p;

          f = MIN (f, (double) last);
          if (km_target_track_sample (targets, f, &p, &r))
            g_array_append_val (trajectory, p);
          if (f >= last)
            break;
        }
      scene.trajectory = (const KmVec3 *) (gpointer) trajectory->data;
      scene.n_trajectory = trajectory->len;
      scene.has_target = km_target_track_sample (targets, first, &scene.target.pos, &r);
      km_mat3_from_quat (r, &scene.target.rot);
    }

  for (guint frame = 0; frame < WARM_UP_FRAMES + n_frames; frame++)
    {
      gint64 start, submitted;

      if (frame == WARM_UP_FRAMES)
        cpu_start = process_cpu_ms ();

      /* Playback: every joint swings a little about the middle of its range. */
      for (guint d = 0; d < n_dof; d++)
        {
          double span = isfinite (upper[d] - lower[d]) ? upper[d] - lower[d] : 1.0;

          q[d] = rest[d] + 0.2 * span * sin (0.05 * frame + d);
        }
      km_skeleton_clamp (skeleton, q);

      start = g_get_monotonic_time ();
      km_skeleton_forward_kinematics (skeleton, q, NULL, world);
      km_renderer_render (renderer, &scene, &camera, width, height);
      submitted = g_get_monotonic_time ();
      glFinish ();
      if (frame >= WARM_UP_FRAMES)
        {
          times[frame - WARM_UP_FRAMES] = (g_get_monotonic_time () - start) / 1000.0;
          submit_sum += (submitted - start) / 1000.0;
        }
    }

  cpu = process_cpu_ms () - cpu_start;
  if (dump_prefix != NULL)
    dump_frame (name, width, height);
  for (guint i = 0; i < n_frames; i++)
    sum += times[i];
  mean = sum / n_frames;
  qsort (times, n_frames, sizeof (double), compare_doubles);
  p95 = times[MIN (n_frames - 1, (guint) ceil (0.95 * n_frames) - 1)];
  g_print ("model=%s frames=%u mean_frame_ms=%.3f p95_frame_ms=%.3f fps=%.1f "
           "mean_submit_ms=%.3f cpu_frame_ms=%.3f\n", name, n_frames, mean, p95, 1000.0 / mean,
           submit_sum / n_frames, cpu / n_frames);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmRenderer) renderer = NULL;
  g_autoptr(GBytes) skeleton_bytes = km_defaults_get_skeleton_json ();
  g_autoptr(GBytes) targets_bytes = km_defaults_get_targets_json ();
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(KmTargetTrack) targets = NULL;
  g_autofree char *size = NULL;
  const KmFormat *skeleton_format = km_format_lookup ("SKELETON-JSON");
  const KmFormat *targets_format = km_format_lookup ("KINEMA-TARGETS-JSON");
  Offscreen offscreen = { EGL_NO_DISPLAY, EGL_NO_CONTEXT, 0, 0, 0 };
  int frames = 120, width = 1280, height = 720;
  const GOptionEntry entries[] = {
    { "frames", 0, 0, G_OPTION_ARG_INT, &frames, "Timed frames per model", "N" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "Framebuffer size", "WxH" },
    { "dump", 0, 0, G_OPTION_ARG_FILENAME, &dump_prefix,
      "Write each model's last frame to PREFIXMODEL.ppm", "PREFIX" },
    { NULL }
  };

  options = g_option_context_new ("[MODEL…]");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (frames < 1 || frames > 100000
      || (size != NULL && (sscanf (size, "%dx%d", &width, &height) != 2 || width < 1
                           || height < 1 || width > 8192 || height > 8192)))
    {
      g_printerr ("bad --frames or --size\n");
      return 2;
    }

  if (!offscreen_init (&offscreen, width, height, &error))
    {
      g_print ("# skipped: %s\n", error->message);
      offscreen_clear (&offscreen);
      return 77;
    }
  g_print ("# %s, %s, %dx%d\n", (const char *) glGetString (GL_RENDERER),
           (const char *) glGetString (GL_VERSION), width, height);

  renderer = km_renderer_new (FALSE, &error);
  if (renderer == NULL)
    {
      g_printerr ("%s\n", error->message);
      offscreen_clear (&offscreen);
      return 1;
    }

  skeleton = skeleton_format->load (KM_DEFAULT_SKELETON_NAME, skeleton_bytes, &error);
  if (skeleton != NULL)
    targets = targets_format->load (KM_DEFAULT_TARGETS_NAME, targets_bytes, &error);
  if (targets == NULL)
    {
      g_printerr ("%s\n", error->message);
      g_clear_pointer (&renderer, km_renderer_free);
      offscreen_clear (&offscreen);
      return 1;
    }
  bench_model (renderer, "default", skeleton, targets, width, height, (guint) frames);

  for (int i = 1; i < argc; i++)
    {
      const KmFormat *format = NULL;
      gpointer model = km_format_load_file (argv[i], NULL, &format, &error);
      g_autofree char *base = g_path_get_basename (argv[i]);

      if (model == NULL)
        {
          g_printerr ("%s\n", error->message);
          g_clear_error (&error);
          continue;
        }
      if (format->kind == KM_FILE_KIND_MODEL)
        bench_model (renderer, base, model, NULL, width, height, (guint) frames);
      else
        g_printerr ("%s: not a model\n", argv[i]);
      format->free_result (model);
    }

  g_clear_pointer (&renderer, km_renderer_free);
  offscreen_clear (&offscreen);
  return 0;
}
