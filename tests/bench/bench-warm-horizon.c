/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * bench-warm-horizon CHAIN TARGETS — how much of a motion's future a tracker must know to
 * follow it within the joint limits without a flip (../shared/bench/README.md: a frame
 * where some joint moves more than 0.5 from the frame before), for a seven-DOF
 * spherical-revolute-spherical arm (the iiwa), whose every solution is known in closed form.
 *
 * Each frame's solution set is sampled (km_ik_srs_config(): eight families × SAMPLES arm
 * angles, those within the limits). One sample may follow another's when no joint moves
 * more than STEP_MAX. From the last frame backwards, each sample learns the last frame that
 * some continuous way from it reaches (its lifetime). A tracker then goes through the frames
 * in order, each frame taking the sample nearest to its previous one among those that
 * follow on from it, except that it knows the next H frames: of those samples it takes only
 * one whose continuous way lasts at least until frame k + H, as long as one does. Where
 * none follows on at all, it flips (to the longest-lived sample). H = 0 knows nothing of
 * the future, as the bench's warm protocol (each frame from the previous answer alone).
 *
 * Prints one key=value line: the mean number of separate stretches of solutions per frame
 * (runs: arm angles of one family in a row, all within the limits), how many of them last
 * to the motion's end (viable), in how many frames the widest stretch is a viable one, and
 * the flips for each H (flips_hH=N). Where the flips reach zero only at a large H, no
 * tracker that looks only at the frame it solves can promise a motion without flips:
 * which stretch survives is decided hundreds of frames later. Never fails on timing;
 * exits 77 for a chain that is no such arm.
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km-format.h"
#include "km-ik-srs.h"
#include "km-targets-json.h"

#define ARM_JOINTS 7
#define SAMPLES    72      /* arm angles per family: every 5°, as the route samples them */
#define NODES      (KM_IK_SRS_FAMILIES * SAMPLES)
#define STEP_MAX   0.45    /* rad: the largest joint step that follows on (flips: 0.5) */

typedef struct
{
  float q[NODES][ARM_JOINTS];
  gboolean valid[NODES];
} Frame;

static double
largest_step (const float *a,
              const float *b)
{
  double m = 0.0;

  for (guint j = 0; j < ARM_JOINTS; j++)
    m = MAX (m, fabsf (a[j] - b[j]));
  return m;
}

static double
distance2 (const float *a,
           const float *b)
{
  double d = 0.0;

  for (guint j = 0; j < ARM_JOINTS; j++)
    d += (double) (a[j] - b[j]) * (a[j] - b[j]);
  return d;
}

/* For every sample, the last frame that a continuous way from it reaches (-1: none there). */
static int *
lifetimes (const Frame *frames,
           guint        n)
{
  int *life = g_new (int, (gsize) n * NODES);

  for (guint i = 0; i < NODES; i++)
    life[(gsize) (n - 1) * NODES + i] = frames[n - 1].valid[i] ? (int) n - 1 : -1;
  for (guint k = n - 1; k-- > 0;)
    for (guint i = 0; i < NODES; i++)
      {
        int *l = &life[(gsize) k * NODES + i];
        const int *next = &life[(gsize) (k + 1) * NODES];

        *l = frames[k].valid[i] ? (int) k : -1;
        if (*l < 0)
          continue;
        for (guint m = 0; m < NODES; m++)
          if (next[m] > *l && largest_step (frames[k].q[i], frames[k + 1].q[m]) <= STEP_MAX)
            *l = next[m];
      }
  return life;
}

typedef struct
{
  guint    runs, viable;
  gboolean widest_viable;
} FrameRuns;

/* The runs of one frame: arm angles of one family in a row, all within the limits (around
 * the circle), and which of them last to the motion's end (@life: the frame's lifetimes). */
static FrameRuns
frame_runs (const Frame *frame,
            const int   *life,
            guint        n)
{
  FrameRuns out = { 0 };
  guint widest = 0;

  for (guint f = 0; f < KM_IK_SRS_FAMILIES; f++)
    {
      const gboolean *v = &frame->valid[f * SAMPLES];
      const int *l = &life[f * SAMPLES];
      guint gap = 0;

      while (gap < SAMPLES && v[gap])
        gap++;
      for (guint d = 1; d <= SAMPLES; d++)
        {
          guint i = (gap + d) % SAMPLES, len = 0;
          gboolean lives = FALSE;

          /* A run starts after an invalid sample (the whole circle: at gap == SAMPLES). */
          if (!v[i] || (gap < SAMPLES && v[(i + SAMPLES - 1) % SAMPLES]) || (gap == SAMPLES && d > 1))
            continue;
          while (len < SAMPLES && v[(i + len) % SAMPLES])
            lives |= l[(i + len) % SAMPLES] == (int) n - 1, len++;
          out.runs++;
          out.viable += lives;
          if (len > widest)
            widest = len, out.widest_viable = lives;
        }
    }
  return out;
}

/* Tracks the motion knowing @horizon frames ahead; returns its flips. */
static guint
track (const Frame *frames,
       const int   *life,
       guint        n,
       guint        horizon)
{
  static const float zero[ARM_JOINTS] = { 0 };
  const float *prev = zero;
  guint flips = 0;

  for (guint k = 0; k < n; k++)
    {
      const int *l = &life[(gsize) k * NODES];
      int need = (int) MIN (k + horizon, n - 1), best = -1;
      double best_d = INFINITY;

      /* Followers that last long enough, else any follower, else (a flip) any sample. */
      for (guint pass = 0; pass < 3 && best < 0; pass++)
        for (guint i = 0; i < NODES; i++)
          {
            double d;

            if (!frames[k].valid[i] || (pass == 0 && l[i] < need))
              continue;
            if (pass < 2 && k > 0 && largest_step (frames[k].q[i], prev) > STEP_MAX)
              continue;
            d = pass < 2 ? distance2 (frames[k].q[i], prev) : -l[i];
            if (d < best_d)
              best_d = d, best = (int) i;
          }
      if (best < 0)
        continue;
      if (k > 0 && largest_step (frames[k].q[best], prev) > STEP_MAX)
        flips++;
      prev = frames[k].q[best];
    }
  return flips;
}

int
main (int    argc,
      char **argv)
{
  static const guint horizons[] = { 0, 1, 5, 20, 50, 100, 200, 500, 1000 };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmTargetTrack) track_file = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autoptr(KmIkSrs) srs = NULL;
  g_autofree gboolean *moving = NULL;
  g_autofree double *q = NULL;
  g_autofree Frame *frames = NULL;
  g_autofree int *life = NULL;
  g_autofree char *chain = NULL;
  const KmTargetKeyframe *keys;
  guint arm[ARM_JOINTS], n_arm = 0, n;
  double runs = 0, viable = 0, widest_viable = 0;
  GString *line;

  if (argc != 3)
    {
      fprintf (stderr, "usage: %s CHAIN TARGETS\n", argv[0]);
      return 2;
    }
  skel = km_format_load_file (argv[1], NULL, NULL, &error);
  if (skel != NULL)
    track_file = km_targets_json_load_file (argv[2], &error);
  if (skel == NULL || track_file == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  keys = km_target_track_get_keyframes (track_file, &n);
  problem = km_ik_problem_new (skel, km_skeleton_get_default_effector (skel));
  km_skeleton_get_mid_range (skel, problem->seed);
  srs = km_ik_srs_new (problem);
  moving = g_new0 (gboolean, problem->n_dof);
  km_ik_problem_get_moved_dofs (problem, moving);
  for (guint d = 0; d < problem->n_dof && n_arm < ARM_JOINTS; d++)
    if (moving[d])
      arm[n_arm++] = d;
  if (srs == NULL || n_arm != ARM_JOINTS || n == 0)
    {
      printf ("# %s: no seven-DOF spherical-revolute-spherical arm\n", argv[1]);
      return 77;
    }

  q = g_new (double, problem->n_dof);
  frames = g_new (Frame, n);
  for (guint k = 0; k < n; k++)
    {
      KmTransform target;

      km_transform_from_pos_quat (keys[k].position, keys[k].orientation, &target);
      for (guint i = 0; i < NODES; i++)
        {
          double psi = -G_PI + 2 * G_PI * (i % SAMPLES) / SAMPLES;

          frames[k].valid[i] = km_ik_srs_config (srs, &target, i / SAMPLES, psi, q);
          for (guint j = 0; j < ARM_JOINTS; j++)
            frames[k].q[i][j] = (float) q[arm[j]];
        }
    }
  life = lifetimes (frames, n);

  for (guint k = 0; k < n; k++)
    {
      FrameRuns r = frame_runs (&frames[k], &life[(gsize) k * NODES], n);

      runs += r.runs;
      viable += r.viable;
      widest_viable += r.widest_viable;
    }

  chain = g_path_get_basename (argv[1]);
  if (g_str_has_suffix (chain, ".json"))
    chain[strlen (chain) - 5] = '\0';
  line = g_string_new (NULL);
  g_string_append_printf (line, "chain=%s n=%u samples=%u step_max=%.2f runs=%.2f viable_runs=%.2f widest_viable=%.4f",
                          chain, n, SAMPLES, STEP_MAX, runs / n, viable / n, widest_viable / n);
  for (guint h = 0; h < G_N_ELEMENTS (horizons); h++)
    g_string_append_printf (line, " flips_h%u=%u", horizons[h], track (frames, life, n, horizons[h]));
  g_string_append_printf (line, " targets=%s", argv[2]);
  printf ("%s\n", line->str);
  g_string_free (line, TRUE);
  return 0;
}
