/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * Conformance of the Scenebuilder XML reader with specs/scenebuilder.md: one case per rule
 * that the development fixtures (test-scenebuilder.c) leave open, and two larger scenes in
 * the style of a lab's files (tests/data/scenebuilder-conformance/). Expected values were
 * computed independently of the reader (child = parent · C_sock · J(q) · C_plug⁻¹).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-error.h"
#include "km-scenebuilder.h"
#include "km-sb-expr.h"
#include "km-shape.h"

#include "test-util.h"

#define EPS 1e-9
#define DEG (G_PI / 180.0)
#define assert_vec3(v, x, y, z) test_util_assert_vec3 ((v), (x), (y), (z), EPS)
#define assert_quat(m, w, x, y, z) test_util_assert_quat ((m), (w), (x), (y), (z), EPS)
#define joint(model, name) test_util_joint ((model)->skeleton, (name))

/* Loads tests/data/scenebuilder-conformance/@name; *@path_out gets its path. */
static KmScenebuilderModel *
load_scene (const char  *name,
            GPtrArray   *warnings,
            char       **path_out)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data",
                                                 "scenebuilder-conformance", name, NULL);
  KmScenebuilderModel *model = test_util_scenebuilder_load_file (path, warnings);

  if (path_out)
    *path_out = g_steal_pointer (&path);
  return model;
}

static KmScenebuilderModel *
load_ok (const char *xml,
         GPtrArray  *warnings)
{
  g_autoptr(GError) error = NULL;
  KmScenebuilderModel *model = test_util_scenebuilder_load ("ok.xml", xml, strlen (xml),
                                                            warnings, &error);

  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}

static const char *
parent_name (KmScenebuilderModel *model,
             const char          *name)
{
  const KmJoint *j = joint (model, name);

  return j->parent >= 0 ? km_skeleton_get_joint (model->skeleton, j->parent)->name : "-";
}

static double
q0 (KmScenebuilderModel *model,
    const char          *name,
    guint                k)
{
  return model->initial_q[joint (model, name)->dof_index + k];
}

static void
world_of (KmScenebuilderModel *model,
          const char          *name,
          KmTransform         *joint_world,
          KmTransform         *body_world)
{
  guint n = km_skeleton_get_n_joints (model->skeleton);
  g_autofree KmTransform *world = g_new (KmTransform, n);
  int j = km_skeleton_find_joint (model->skeleton, name);

  g_assert_cmpint (j, >=, 0);
  km_skeleton_forward_kinematics (model->skeleton, model->initial_q, NULL, world);
  if (joint_world)
    *joint_world = world[j];
  if (body_world)
    km_transform_mul (&world[j], &model->body_offsets[j], body_world);
}

/* The body carried by joint @name: world position and orientation at the initial q. */
static void
assert_body (KmScenebuilderModel *model,
             const char          *name,
             double px, double py, double pz,
             double qw, double qx, double qy, double qz)
{
  KmTransform body;

  world_of (model, name, NULL, &body);
  assert_vec3 (body.pos, px, py, pz);
  assert_quat (&body.rot, qw, qx, qy, qz);
}

/* The joint's axis in world coordinates at the initial configuration. */
static void
assert_axis (KmScenebuilderModel *model,
             const char          *name,
             double               x,
             double               y,
             double               z)
{
  KmTransform frame;

  world_of (model, name, &frame, NULL);
  assert_vec3 (km_mat3_mul_vec3 (&frame.rot, joint (model, name)->axis), x, y, z);
}

static void
assert_limit (KmScenebuilderModel *model,
              const char          *name,
              double               min,
              double               max)
{
  const KmJoint *j = joint (model, name);

  g_assert_true (j->limits[0].limited);
  g_assert_cmpfloat_with_epsilon (j->limits[0].min, min, EPS);
  g_assert_cmpfloat_with_epsilon (j->limits[0].max, max, EPS);
}

static void
assert_vlimit (KmScenebuilderModel *model,
               const char          *name,
               double               min,
               double               max)
{
  int j = km_skeleton_find_joint (model->skeleton, name);

  g_assert_true (model->velocity_limits[j].limited);
  g_assert_cmpfloat_with_epsilon (model->velocity_limits[j].min, min, EPS);
  g_assert_cmpfloat_with_epsilon (model->velocity_limits[j].max, max, EPS);
}

static double
effort (KmScenebuilderModel *model,
        const char          *name)
{
  return model->effort_limits[km_skeleton_find_joint (model->skeleton, name)];
}

/* @warnings holds exactly @n messages and each @expected one as a prefix of one of them. */
static void
assert_warnings (GPtrArray          *warnings,
                 guint               n,
                 const char * const *expected)
{
  for (guint i = 0; expected[i] != NULL; i++)
    {
      gboolean found = FALSE;

      for (guint k = 0; k < warnings->len && !found; k++)
        found = g_str_has_prefix (warnings->pdata[k], expected[i]);
      if (!found)
        {
          for (guint k = 0; k < warnings->len; k++)
            g_test_message ("warning: %s", (char *) warnings->pdata[k]);
          g_error ("missing warning “%s…”", expected[i]);
        }
    }
  if (warnings->len != n)
    {
      for (guint k = 0; k < warnings->len; k++)
        g_test_message ("warning: %s", (char *) warnings->pdata[k]);
      g_error ("%u warnings, expected %u", warnings->len, n);
    }
}

static void
assert_prefix (const char *message,
               const char *prefix)
{
  if (!g_str_has_prefix (message, prefix))
    g_error ("got “%s”, expected “%s…”", message, prefix);
}

/* ------------------------------------------------------------------------------------------ */

/* Realistic scene 1: module by path, file imports two deep, sticky units, mimic, IK. */
static void
test_mobile_manipulator (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  g_autoptr(KmScenebuilderModel) model = load_scene ("mobile_manipulator/mobile_manipulator.xml",
                                                     warnings, &path);
  const double h = sqrt (0.5);
  const KmScenebuilderIk *ik;
  const KmJoint *fr;
  g_autofree char *w_pmat = g_strconcat (path, ":34:3: <pmat> has no meaning", NULL);
  g_autofree char *w_gravity = g_strconcat (path, ":35:3: <gravity> has no meaning", NULL);
  /* At the first value converted with the leaked mm (the camera connector's trn), not at
   * the fixjoint created before it, which has no length. */
  g_autofree char *w_leak = g_strconcat (path, ":58:34: the default unit of “unit_length” is "
                                         "inherited from an earlier scope", NULL);
  g_autofree char *w_ticks = g_strconcat (path, ":71:3: unknown element <ticks>", NULL);
  const char *expected[] = { w_pmat, w_gravity, w_leak, w_ticks, NULL };

  assert_warnings (warnings, 4, expected);
  g_assert_cmpuint (km_skeleton_get_n_joints (model->skeleton), ==, 11);
  g_assert_cmpuint (km_skeleton_get_n_dof (model->skeleton), ==, 7);
  g_assert_true (km_skeleton_has_free_root (model->skeleton));

  g_assert_cmpstr (km_skeleton_get_joint (model->skeleton, 0)->name, ==, "base");
  g_assert_cmpint (joint (model, "base")->type, ==, KM_JOINT_FREE);
  assert_body (model, "base", 0, 0, 0.15, 1, 0, 0, 0);

  /* Module copies; mirrored wheel axes from rot="-90@x" / "90@x" (degrees from the attr). */
  g_assert_cmpstr (parent_name (model, "wheel_left_joint"), ==, "base");
  g_assert_cmpstr (parent_name (model, "wheel_right_joint"), ==, "base");
  g_assert_cmpstr (model->body_paths[km_skeleton_find_joint (model->skeleton,
                                                             "wheel_left_joint")],
                   ==, "wheel_left/wheel");
  assert_axis (model, "wheel_left_joint", 0, 1, 0);
  assert_axis (model, "wheel_right_joint", 0, -1, 0);
  assert_body (model, "wheel_left_joint", 0, 0.25, 0.1, h, -h, 0, 0);
  assert_body (model, "wheel_right_joint", 0, -0.25, 0.1, h, h, 0, 0);
  assert_vlimit (model, "wheel_left_joint", -4 * G_PI, 4 * G_PI);
  g_assert_cmpfloat_with_epsilon (effort (model, "wheel_left_joint"), 20, EPS);
  g_assert_false (joint (model, "wheel_left_joint")->limits[0].limited);

  /* The arm file (mm; its document element's trn is dropped), degrees from this file. */
  g_assert_cmpint (joint (model, "arm_mount")->type, ==, KM_JOINT_FIXED);
  assert_body (model, "arm_mount", 0.2, 0, 0.25, h, 0, 0, h);
  g_assert_cmpstr (parent_name (model, "shoulder_yaw"), ==, "arm_mount");
  assert_axis (model, "shoulder_yaw", 0, 0, 1);
  assert_limit (model, "shoulder_yaw", -170 * DEG, 170 * DEG);
  assert_vlimit (model, "shoulder_yaw", -120 * DEG, 120 * DEG);
  g_assert_cmpfloat_with_epsilon (effort (model, "shoulder_yaw"), 40, EPS);
  assert_body (model, "shoulder_yaw", 0.2, 0, 0.33, h, 0, 0, h);

  g_assert_cmpstr (parent_name (model, "shoulder_pitch"), ==, "shoulder_yaw");
  assert_axis (model, "shoulder_pitch", -1, 0, 0);
  g_assert_cmpfloat_with_epsilon (q0 (model, "shoulder_pitch", 0), 30 * DEG, EPS);
  assert_limit (model, "shoulder_pitch", -G_PI / 2, G_PI / 2);
  assert_body (model, "shoulder_pitch", 0.2, 0, 0.45,
               0.683012701892, -0.183012701892, 0.183012701892, 0.683012701892);

  g_assert_cmpstr (parent_name (model, "elbow"), ==, "shoulder_pitch");
  assert_axis (model, "elbow", -1, 0, 0);
  g_assert_cmpfloat_with_epsilon (q0 (model, "elbow", 0), -60 * DEG, EPS);
  assert_limit (model, "elbow", -150 * DEG, 150 * DEG);
  g_assert_cmpfloat_with_epsilon (effort (model, "elbow"), 20, EPS);
  assert_body (model, "elbow", 0.2, 0.15, 0.709807621135,
               0.683012701892, 0.183012701892, -0.183012701892, 0.683012701892);

  /* The gripper file, imported by the arm file as parts\parallel_gripper.xml (BOM, CRLF;
   * its document element's rot is dropped); lengths in mm, leaked from the arm file. */
  g_assert_cmpstr (parent_name (model, "tool_mount"), ==, "elbow");
  assert_body (model, "tool_mount", 0.2, 0.025, 0.926313972081,
               0.683012701892, 0.183012701892, -0.183012701892, 0.683012701892);
  g_assert_cmpstr (parent_name (model, "finger_l_joint"), ==, "tool_mount");
  g_assert_cmpint (joint (model, "finger_l_joint")->type, ==, KM_JOINT_PRISMATIC);
  assert_axis (model, "finger_l_joint", -1, 0, 0);
  assert_axis (model, "finger_r_joint", 1, 0, 0);
  g_assert_cmpfloat_with_epsilon (q0 (model, "finger_l_joint", 0), 0.02, EPS);
  assert_limit (model, "finger_l_joint", 0, 0.04);
  assert_vlimit (model, "finger_l_joint", -0.05, 0.05);
  assert_body (model, "finger_l_joint", 0.17, -0.005, 0.978275496309,
               0.683012701892, 0.183012701892, -0.183012701892, 0.683012701892);
  assert_body (model, "finger_r_joint", 0.23, -0.005, 0.978275496309,
               0.683012701892, 0.183012701892, -0.183012701892, 0.683012701892);
  fr = joint (model, "finger_r_joint");
  g_assert_cmpint (fr->mimic, ==, km_skeleton_find_joint (model->skeleton, "finger_l_joint"));
  g_assert_cmpfloat_with_epsilon (fr->mimic_ratio, 1, EPS);
  g_assert_cmpfloat_with_epsilon (fr->mimic_offset, 0, EPS);
  g_assert_cmpuint (model->gears->len, ==, 1);

  /* After the import the default length unit is still mm: "0 0 -40" is 4 cm. */
  g_assert_cmpstr (parent_name (model, "mast_joint"), ==, "base");
  assert_body (model, "mast_joint", -0.2, 0, 0.29, 1, 0, 0, 0);

  /* IK (HEAD form: sock, world target, mm leaked). */
  g_assert_cmpuint (model->ik_targets->len, ==, 1);
  ik = g_ptr_array_index (model->ik_targets, 0);
  g_assert_cmpstr (ik->name, ==, "grasp");
  g_assert_cmpint (ik->effector, ==, km_skeleton_find_joint (model->skeleton, "tool_mount"));
  assert_vec3 (ik->target.pos, 0.5, 0, 0.6);
  assert_vec3 (ik->effector_offset.pos, 0, 0, 0.12);
  g_assert_true (ik->enable_position);
  g_assert_false (ik->enable_orientation);
}

/* Realistic scene 2: var, for over namespaces, links, balljoint, universaljoint, loops. */
static void
test_dual_arm_torso (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  g_autoptr(KmScenebuilderModel) model = load_scene ("dual_arm_torso.xml", warnings, &path);
  g_autofree char *w_disabled = g_strconcat (path, ":41:3: the joint is disabled", NULL);
  g_autofree char *w_loop = g_strconcat (path, ":59:3: “strut” closes a kinematic loop", NULL);
  const char *expected[] = { w_disabled, w_loop, NULL };
  const KmScenebuilderIk *ik;
  KmQuat neck;
  KmVec3 euler;

  assert_warnings (warnings, 2, expected);
  g_assert_cmpuint (km_skeleton_get_n_joints (model->skeleton), ==, 11);
  g_assert_cmpuint (km_skeleton_get_n_dof (model->skeleton), ==, 12);
  g_assert_false (km_skeleton_has_free_root (model->skeleton));

  /* stationary="true": a fixed base. */
  g_assert_cmpstr (km_skeleton_get_joint (model->skeleton, 0)->name, ==, "pelvis");
  g_assert_cmpint (joint (model, "pelvis")->type, ==, KM_JOINT_FIXED);

  /* cm and deg from the file's attr. */
  g_assert_cmpstr (parent_name (model, "waist_yaw"), ==, "pelvis");
  assert_axis (model, "waist_yaw", 0, 0, 1);
  g_assert_cmpfloat_with_epsilon (q0 (model, "waist_yaw", 0), 15 * DEG, EPS);
  assert_limit (model, "waist_yaw", -G_PI / 2, G_PI / 2);
  assert_body (model, "waist_yaw", 0, 0, 1, 0.991444861374, 0, 0, 0.13052619222);

  /* Balljoint: pos is a rotation with the default angle unit (10@z*5@y in degrees). */
  g_assert_cmpstr (parent_name (model, "neck"), ==, "waist_yaw");
  g_assert_cmpint (joint (model, "neck")->type, ==, KM_JOINT_SPHERICAL);
  neck = km_quat_mul (km_quat_from_axis_angle (km_vec3 (0, 0, 1), 10 * DEG),
                      km_quat_from_axis_angle (km_vec3 (0, 1, 0), 5 * DEG));
  euler = km_quat_to_euler_xyz (neck);
  g_assert_cmpfloat_with_epsilon (q0 (model, "neck", 0), euler.x, EPS);
  g_assert_cmpfloat_with_epsilon (q0 (model, "neck", 1), euler.y, EPS);
  g_assert_cmpfloat_with_epsilon (q0 (model, "neck", 2), euler.z, EPS);
  assert_body (model, "neck", 0.00789899283372, 0.00368336085007, 1.49961946981,
               0.975366789651, -0.00944096336157, 0.0425854337178, 0.216233611385);

  /* shoulder_l is given by <link> children; $shoulder_w = 20 cm. */
  g_assert_cmpstr (parent_name (model, "shoulder_l"), ==, "waist_yaw");
  g_assert_cmpstr (parent_name (model, "shoulder_r"), ==, "waist_yaw");
  assert_axis (model, "shoulder_l", -0.258819045103, 0.965925826289, 0);
  assert_axis (model, "shoulder_r", 0.258819045103, -0.965925826289, 0);
  assert_body (model, "shoulder_l", -0.0517638090205, 0.193185165258, 1.3,
               0.70105738465, -0.70105738465, -0.0922959556413, 0.0922959556413);
  assert_body (model, "shoulder_r", 0.0517638090205, -0.193185165258, 1.3,
               0.70105738465, 0.70105738465, 0.0922959556413, 0.0922959556413);

  /* The loop copies: names clash, so the skeleton uses the paths; mm inside the arm
   * namespaces ($upper_len = 280 mm); pos="$s*10+20" per copy. */
  g_assert_cmpstr (parent_name (model, "arm0/elbow"), ==, "shoulder_l");
  g_assert_cmpstr (parent_name (model, "arm1/elbow"), ==, "shoulder_r");
  g_assert_cmpfloat_with_epsilon (q0 (model, "arm0/elbow", 0), 20 * DEG, EPS);
  g_assert_cmpfloat_with_epsilon (q0 (model, "arm1/elbow", 0), 30 * DEG, EPS);
  assert_limit (model, "arm1/elbow", 0, 145 * DEG);
  assert_body (model, "arm0/elbow", -0.124233141649, 0.463644396619, 1.3,
               0.674379723207, -0.706433772213, 0.0308435645972, 0.212631109972);
  assert_body (model, "arm1/elbow", 0.124233141649, -0.463644396619, 1.3,
               0.653281482438, 0.70105738465, -0.0922959556413, 0.270598050073);

  /* Universal joint: Ry(q1) about the sock's y, then Rx(q0); pos="10 -5" is (q0, q1). */
  g_assert_cmpstr (parent_name (model, "arm0/wrist_y"), ==, "arm0/elbow");
  g_assert_cmpstr (parent_name (model, "arm0/wrist_x"), ==, "arm0/wrist_y");
  g_assert_cmpfloat_with_epsilon (q0 (model, "arm0/wrist_y", 0), -5 * DEG, EPS);
  g_assert_cmpfloat_with_epsilon (q0 (model, "arm0/wrist_x", 0), 10 * DEG, EPS);
  assert_axis (model, "arm0/wrist_y", -0.33036608954935215, -0.0885213269013768,
               -0.9396926207859084);
  assert_axis (model, "arm0/wrist_x", 0.8816618338657564, 0.32647084083427147,
               -0.34071865342161006);
  assert_body (model, "arm0/wrist_x", -0.188937902925, 0.705125853191, 1.3,
               0.733217148879, -0.634998842143, 0.0225928766495, 0.242195468562);
  assert_body (model, "arm1/wrist_x", 0.188937902925, -0.705125853191, 1.3,
               0.584093813196, 0.766015504914, -0.0993480025778, 0.249368478364);

  /* IK, 2013 form: target in the ref connector's frame (cm again after the loop). */
  g_assert_cmpuint (model->ik_targets->len, ==, 1);
  ik = g_ptr_array_index (model->ik_targets, 0);
  g_assert_cmpint (ik->effector, ==, km_skeleton_find_joint (model->skeleton, "arm0/wrist_x"));
  assert_vec3 (ik->target.pos, 0.3, 0.2, 1.1);
  assert_vec3 (ik->effector_offset.pos, 0, 0, 0.08);
}

/* 8.2: a body's parent joint is the first joint in document order that plugs it. */
static void
test_first_plug_wins (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  g_autoptr(KmScenebuilderModel) model = load_scene ("fourbar_order.xml", warnings, &path);
  g_autofree char *w_loop = g_strconcat (path, ":14:3: “j_ground” closes a kinematic loop",
                                         NULL);
  const char *expected[] = { w_loop, NULL };

  assert_warnings (warnings, 1, expected);
  g_assert_cmpuint (km_skeleton_get_n_joints (model->skeleton), ==, 4);
  g_assert_cmpstr (parent_name (model, "j_crank"), ==, "ground");
  g_assert_cmpstr (parent_name (model, "j_coupler"), ==, "j_crank");
  g_assert_cmpstr (parent_name (model, "j_rocker"), ==, "j_coupler");
  g_assert_cmpint (km_skeleton_find_joint (model->skeleton, "j_ground"), <, 0);
  assert_body (model, "j_rocker", 1, 0, 0, 1, 0, 0, 0);
  assert_body (model, "j_coupler", 0, 0, 1, 1, 0, 0, 0);
}

/* 1.5: an inherited value invalid for one element type is a warning, default kept. */
static void
test_inherited_invalid (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  g_autoptr(KmScenebuilderModel) model = load_scene ("attr_clash.xml", warnings, &path);
  g_autofree char *w_pos = g_strconcat (path, ":2:34: invalid value of “pos”: missing @axis",
                                        NULL);
  g_autofree char *w_loop = g_strconcat (path, ":10:3: “neck2” closes a kinematic loop", NULL);
  const char *expected[] = { w_pos, w_loop, NULL };

  /* Once for both balljoints that inherit it; "wag" has its own value. */
  assert_warnings (warnings, 2, expected);
  g_assert_nonnull (strstr (warnings->pdata[0], "the value inherited from <attr> is ignored "
                                                "for <balljoint>"));
  /* The hinge takes the inherited 30 (degrees). */
  g_assert_cmpfloat_with_epsilon (q0 (model, "pan", 0), 30 * DEG, EPS);
  /* neck keeps the default (identity). */
  for (guint k = 0; k < 3; k++)
    g_assert_cmpfloat_with_epsilon (q0 (model, "neck", k), 0, EPS);
  g_assert_cmpfloat_with_epsilon (q0 (model, "wag", 0), 20 * DEG, EPS);
  g_assert_cmpfloat_with_epsilon (q0 (model, "wag", 1), 0, EPS);
}

/* 7.5 + 7.4: $var in import filename and path inside <for>. */
static void
test_for_import (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmScenebuilderModel) model = load_scene ("legs/for_import.xml", warnings, NULL);

  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_cmpuint (km_skeleton_get_n_joints (model->skeleton), ==, 5);
  g_assert_cmpstr (parent_name (model, "hip0"), ==, "hip");
  g_assert_cmpstr (parent_name (model, "hip1"), ==, "hip");
  g_assert_cmpstr (parent_name (model, "ankle0"), ==, "hip0");
  g_assert_cmpstr (parent_name (model, "ankle1"), ==, "hip1");
  assert_body (model, "hip0", 0, 0.1, -0.1, 1, 0, 0, 0);
  assert_body (model, "hip1", 0, -0.1, -0.2, 1, 0, 0, 0);
  assert_body (model, "ankle0", 0, 0.1, -0.39, 1, 0, 0, 0);
  assert_body (model, "ankle1", 0, -0.1, -0.48, 1, 0, 0, 0);
  g_assert_cmpstr (model->body_paths[km_skeleton_find_joint (model->skeleton, "ankle1")], ==,
                   "foot1/sole");
}

/* 7.4: trn/rot on <import> pose the namespace; the imported document element's do not. */
static void
test_import_pose (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmScenebuilderModel) model = load_scene ("import_pose.xml", warnings, NULL);
  const double h = sqrt (0.5);

  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_cmpuint (km_skeleton_get_n_joints (model->skeleton), ==, 3);
  g_assert_cmpstr (parent_name (model, "from_module/b"), ==, "poses");
  assert_body (model, "from_module/b", 1, 1, 0, h, 0, 0, h);
  assert_body (model, "from_file/b", 0, 2, -1, h, h, 0, 0);
}

/* 1.2: unknown attributes are noted once per (element, attribute); known ones that the
 * reader does not use, and xmlns/prefixed ones, are not. */
static void
test_unknown_attributes (void)
{
  static const char xml[] =
    "<namespace name=\"n\" xmlns:dimp=\"urn:x\" dimp:weight=\"2\">\n"
    "  <gravity accel=\"0 0 -1G\" dir=\"0 0 -1\"/>\n"
    "  <vmat name=\"v\" solid=\"true\" shininess=\"2\"/>\n"
    "  <body name=\"a\" pos=\"1 2 3\" vel=\"0 0 1\" auto_mass=\"true\"><connector name=\"c\"/></body>\n"
    "  <body name=\"b\" pos=\"0\"><connector name=\"c\"/></body>\n"
    "  <hinge sock=\"a/c\" plug=\"b/c\" damper=\"1\" targetpos=\"0\" cyclic=\"false\" colour=\"x\"/>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmScenebuilderModel) model = load_ok (xml, warnings);
  const char *expected[] = {
    "ok.xml:2:3: <gravity> has no meaning",
    "ok.xml:2:33: unknown attribute “dir” of <gravity> ignored",
    "ok.xml:3:25: unknown attribute “solid” of <vmat> ignored",
    "ok.xml:4:23: unknown attribute “pos” of <body> ignored",
    "ok.xml:6:80: unknown attribute “colour” of <hinge> ignored",
    NULL,
  };

  /* body pos once, though two bodies have it. */
  assert_warnings (warnings, 5, expected);
  /* An unnamed hinge is "hinge1" (1.4). */
  g_assert_cmpstr (parent_name (model, "hinge1"), ==, "a");
}

/* 2.5 with 1.6: every dimension of joint attributes scales with its default units. */
static void
test_joint_units (void)
{
  static const char xml[] =
    "<namespace name=\"u\">\n"
    "  <attr unit_length=\"[mm]\" unit_rotation=\"deg\" unit_mass=\"g\" unit_time=\"min\"/>\n"
    "  <body name=\"a\" dynamical=\"0\">\n"
    "    <connector name=\"flip\" trn=\"0 0 100\" rot=\"180deg@x\"/>\n"
    "    <connector name=\"side\" rot=\"90@Y\"/>\n"
    "  </body>\n"
    "  <body name=\"b\"><connector name=\"c\"/></body>\n"
    "  <body name=\"e\"><connector name=\"c\"/></body>\n"
    "  <hinge name=\"h\" sock=\"a/flip\" plug=\"b/c\" range=\"-90 1.5rad\" vrange=\"-60 60\" flim=\"1\" pos=\"45\"/>\n"
    "  <slider name=\"s\" sock=\"a/side\" plug=\"e/c\" range=\"0 100\" vrange=\"-6000 6000\"\n"
    "          flim=\"2\" pos=\"25\" enabled=\"TRUE\"/>\n"
    "  <namespace name=\"si\" unit_length=\"0.001\" unit_time=\"1\" unit_mass=\"kg\">\n"
    "    <body name=\"f\"><connector name=\"c\" trn=\"0 0 1000\"/></body>\n"
    "  </namespace>\n"
    "  <fixjoint name=\"x\" sock=\"a/side\" plug=\"si/f/c\"/>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmScenebuilderModel) model = load_ok (xml, warnings);

  g_assert_cmpuint (warnings->len, ==, 0);
  /* rot="180deg@x" turns the hinge axis to -z, "90@Y" (degrees) the slider's to +x. */
  assert_axis (model, "h", 0, 0, -1);
  assert_axis (model, "s", 1, 0, 0);
  /* Per-component units: -90 deg, 1.5 rad. */
  assert_limit (model, "h", -G_PI / 2, 1.5);
  g_assert_cmpfloat_with_epsilon (q0 (model, "h", 0), G_PI / 4, EPS);
  /* R/T: 60 deg/min. */
  assert_vlimit (model, "h", -G_PI / 180, G_PI / 180);
  /* ML²/T²: 1 g·mm²/min². */
  g_assert_cmpfloat_with_epsilon (effort (model, "h"), 1e-3 * 1e-6 / 3600, 1e-20);
  /* L, L/T, ML/T². */
  assert_limit (model, "s", 0, 0.1);
  g_assert_cmpfloat_with_epsilon (q0 (model, "s", 0), 0.025, EPS);
  assert_vlimit (model, "s", -0.1, 0.1);
  g_assert_cmpfloat_with_epsilon (effort (model, "s"), 2e-3 * 1e-3 / 3600, 1e-20);
  assert_body (model, "s", 0.025, 0, 0, sqrt (0.5), 0, sqrt (0.5), 0);
  /* unit_length="0.001" on the namespace itself; f's connector is 1 m along its z, so f
   * sits 1 m along the side connector's -z (world -x). */
  assert_body (model, "x", -1, 0, 0, sqrt (0.5), 0, sqrt (0.5), 0);
  /* Rx(180°)·Rz(45°) */
  assert_body (model, "h", 0, 0, 0.1, 0, cos (G_PI / 8), -sin (G_PI / 8), 0);
}

/* 3 and 7.4: paths and imports. A bad one is a warning at FILE:LINE:COLUMN of the
 * offending value (1.7), and what needs it is left out; the scene still loads. */
static void
test_reference_errors (void)
{
  static const struct
  {
    const char *xml;
    const char *prefix;   /* of the first warning */
    guint       n_warnings;
    guint       n_joints;
  } cases[] = {
    /* Links are never traversed: "sock" is a link of the hinge, not a child. */
    { "<namespace name=\"p\">\n"
      "  <body name=\"a\"><connector name=\"c\"/></body>\n"
      "  <body name=\"b\"><connector name=\"c\"/></body>\n"
      "  <hinge name=\"h\" sock=\"a/c\" plug=\"b/c\"/>\n"
      "  <hinge name=\"g\" sock=\"h/sock\" plug=\"b/c\"/>\n"
      "</namespace>\n",
      "bad.xml:5:25: no object at path “h/sock”", 1, 2 },
    /* Going above the scene root. */
    { "<namespace name=\"p\">\n"
      "  <body name=\"a\"><connector name=\"c\"/></body>\n"
      "  <hinge sock=\"../../a/c\" plug=\"a/c\"/>\n"
      "</namespace>\n",
      "bad.xml:3:16: no object at path “../../a/c”", 1, 1 },
    /* Creation order: a body declared after the joint. */
    { "<namespace name=\"p\">\n"
      "  <body name=\"a\"><connector name=\"c\"/></body>\n"
      "  <hinge sock=\"a/c\" plug=\"b/c\"/>\n"
      "  <body name=\"b\"><connector name=\"c\"/></body>\n"
      "</namespace>\n",
      "bad.xml:3:27: no object at path “b/c” (a relative path starts at the element that "
      "contains this one; objects must be declared before they are referenced); the joint is "
      "left out", 3, 3 },   /* and a, b floating roots fixed under "p" */
    /* A link's base is the element that contains it: one more "..". The link is ignored,
     * so the hinge has no sock either. */
    { "<namespace name=\"p\">\n"
      "  <body name=\"a\"><connector name=\"c\"/></body>\n"
      "  <hinge><link name=\"sock\" path=\"a/c\"/></hinge>\n"
      "</namespace>\n",
      "bad.xml:3:34: no object at path “a/c” (a relative path starts at the element that "
      "contains this one; objects must be declared before they are referenced); the link is "
      "ignored", 2, 1 },
    /* A link with the name of a set attribute is renamed; the attribute wins, so the
     * joint still lacks its plug. */
    { "<namespace name=\"p\">\n"
      "  <body name=\"a\"><connector name=\"c\"/></body>\n"
      "  <hinge sock=\"a/c\"><link name=\"sock\" path=\"../a/c\"/></hinge>\n"
      "</namespace>\n",
      "bad.xml:3:45: “sock” is already set on this element; the link is renamed and unused",
      2, 1 },
    /* Both path and filename. */
    { "<namespace name=\"p\">\n"
      "  <module name=\"m\"><body/></module>\n"
      "  <body/>\n"
      "  <import name=\"i\" path=\"m\" filename=\"m.xml\"/>\n"
      "</namespace>\n",
      "bad.xml:4:39: an <import> takes either path or filename, not both; nothing is imported",
      1, 1 },
    /* A module path names elements of the file, not objects. */
    { "<namespace name=\"p\">\n"
      "  <namespace name=\"lib\"><module name=\"m\"><body/></module></namespace>\n"
      "  <body/>\n"
      "  <import name=\"i\" path=\"m\"/>\n"
      "</namespace>\n",
      "bad.xml:4:26: invalid import path “m”: no module there", 1, 1 },
    /* Neither. */
    { "<namespace name=\"p\">\n"
      "  <body/>\n"
      "  <import name=\"i\" trn=\"1 0 0\"/>\n"
      "</namespace>\n",
      "bad.xml:3:3: an <import> needs a path (a module) or a filename; nothing is imported",
      1, 1 },
    /* A cycle through two modules. */
    { "<namespace name=\"p\">\n"
      "  <module name=\"m\"><body/><import name=\"again\" path=\"../n\"/></module>\n"
      "  <module name=\"n\"><import name=\"back\" path=\"../m\"/></module>\n"
      "  <import name=\"i\" path=\"m\"/>\n"
      "</namespace>\n",
      "bad.xml:3:46: the module “../m” imports itself (an import cycle); nothing is imported",
      1, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmScenebuilderModel) model =
        test_util_scenebuilder_load ("bad.xml", cases[i].xml, strlen (cases[i].xml), warnings,
                                     &error);

      g_test_message ("case %u", i);
      g_assert_no_error (error);
      for (guint k = 0; k < warnings->len; k++)
        g_test_message ("warning: %s", (char *) warnings->pdata[k]);
      g_assert_cmpuint (warnings->len, ==, cases[i].n_warnings);
      assert_prefix (warnings->pdata[0], cases[i].prefix);
      g_assert_cmpuint (km_skeleton_get_n_joints (model->skeleton), ==, cases[i].n_joints);
    }

  {
    /* Still errors: the unknown document element, and no body (<joint> is not an element
     * in Scenebuilder: unknown, skipped). */
    g_autofree char *message = test_util_scenebuilder_error ("<scene>\n  <body/>\n</scene>\n",
                                                             NULL);

    assert_prefix (message, "bad.xml:1:1: expected a Scenebuilder scene");
    g_free (g_steal_pointer (&message));
    message = test_util_scenebuilder_error ("<namespace>\n  <joint sock=\"a\" plug=\"b\"/>\n"
                                            "</namespace>\n", NULL);
    assert_prefix (message, "bad.xml:1:1: the scene has no <body>");
  }
  {
    /* A missing file: a warning at the filename, and nothing is imported. */
    static const char xml[] =
      "<namespace name=\"p\">\n"
      "  <body name=\"a\"/>\n"
      "  <import name=\"i\" filename=\"no-such-dir/none.xml\"/>\n"
      "</namespace>\n";
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GError) error = NULL;
    g_autoptr(KmScenebuilderModel) model =
      test_util_scenebuilder_load ("bad.xml", xml, strlen (xml), warnings, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (warnings->len, ==, 1);
    assert_prefix (warnings->pdata[0], "bad.xml:3:30: invalid import filename "
                                       "“no-such-dir/none.xml”: cannot read the file: ");
    g_assert_true (g_str_has_suffix (warnings->pdata[0], "; nothing is imported"));
    g_assert_cmpuint (km_skeleton_get_n_joints (model->skeleton), ==, 1);
  }
}

/* 1.3/1.4/1.5: empty values are absent, names through attr, paths with ., // and /. */
static void
test_lookup_rules (void)
{
  static const char xml[] =
    "<namespace name=\"p\">\n"
    "  <attr range=\"-1 1\"/>\n"
    "  <body name=\"a\" dynamical=\"false\"><connector name=\"c\"/><connector name=\"d\" trn=\"0 1 0\"/></body>\n"
    "  <body name=\"b\"><connector name=\"c\"/></body>\n"
    "  <body name=\"b\"><connector name=\"c\"/></body>\n"
    "  <hinge name=\"j\" sock=\"./a/c\" plug=\"b//c/\" range=\"\"/>\n"
    "  <hinge name=\"j\" sock=\"/p/a/d\" plug=\"b1/c\" range=\"-2 2\"/>\n"
    "  <namespace name=\"n\">\n"
    "    <attr name=\"x\"/>\n"
    "    <body><connector/></body>\n"
    "    <body><connector/></body>\n"
    "  </namespace>\n"
    "  <fixjoint name=\"f\" sock=\"a/c\" plug=\"n/x/x\"/>\n"
    "  <fixjoint name=\"g\" sock=\"a/c\" plug=\"n/x1/x\"/>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmScenebuilderModel) model = load_ok (xml, warnings);
  const char *expected[] = {
    "ok.xml:5:15: a sibling is already called “b”; this one is renamed “b1”",
    "ok.xml:7:16: a sibling is already called “j”; this one is renamed “j1”",
    "ok.xml:9:17: an <attr> sets “name”",
    "ok.xml:11:5: a sibling is already called “x”; this one is renamed “x1”",
    NULL,
  };

  assert_warnings (warnings, 4, expected);
  /* range="" is absent: the inherited -1 1 applies. */
  assert_limit (model, "j", -1, 1);
  assert_limit (model, "j1", -2, 2);
  assert_body (model, "j1", 0, 1, 0, 1, 0, 0, 0);
  g_assert_cmpstr (parent_name (model, "f"), ==, "a");
  g_assert_cmpstr (model->body_paths[km_skeleton_find_joint (model->skeleton, "g")], ==,
                   "n/x1");
}

/* 5.7, 5.8, 8.1: vmat colour names (CSS/X11, any case), alpha; shapes at the connector,
 * cylinders along the connector's z. */
static void
test_shapes_colours (void)
{
  static const char xml[] =
    "<namespace name=\"c\">\n"
    "  <attr unit_length=\"mm\"/>\n"
    "  <vmat name=\"sky\" colorname=\" SkyBlue \" alpha=\"0.5\"/>\n"
    "  <vmat name=\"gold\" colorname=\"gold\"/>\n"
    "  <vmat name=\"odd\" colorname=\"notacolour\" diffuse=\"0.1 0.2 0.3 1\"/>\n"
    "  <cylinder name=\"cyl\" radius=\"20\" height=\"100\"/>\n"
    "  <box name=\"bx\" size=\"10 20 30\"/>\n"
    "  <sphere name=\"sph\" radius=\"5\"/>\n"
    "  <body name=\"b\" dynamical=\"false\">\n"
    "    <connector name=\"side\" trn=\"0 50 0\" rot=\"-90deg@x\"/>\n"
    "    <connector name=\"top\" trn=\"0 0 100\"/>\n"
    "  </body>\n"
    "  <attach connector=\"b/side\" shape=\"cyl\" vmat=\"sky\"/>\n"
    "  <attach connector=\"b/top\" shape=\"bx\" vmat=\"gold\"/>\n"
    "  <attach connector=\"b/top\" shape=\"sph\" vmat=\"odd\"/>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmScenebuilderModel) model = load_ok (xml, warnings);
  const char *expected[] = {
    "ok.xml:5:31: unknown colour name “notacolour”; the diffuse colour is used",
    NULL,
  };
  KmShape * const *shapes;
  guint n = 0;
  KmVec3 along;

  assert_warnings (warnings, 1, expected);
  shapes = km_skeleton_get_shapes (model->skeleton, 0, &n);
  g_assert_cmpuint (n, ==, 3);

  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_CYLINDER);
  g_assert_cmpfloat_with_epsilon (shapes[0]->radius, 0.02, EPS);
  g_assert_cmpfloat_with_epsilon (shapes[0]->height, 0.1, EPS);
  assert_vec3 (shapes[0]->transform.pos, 0, 0.05, 0);
  /* KmShape cylinders run along their +y; it must be the connector's z = world +y. */
  along = km_mat3_mul_vec3 (&shapes[0]->transform.rot, km_vec3 (0, 1, 0));
  assert_vec3 (along, 0, 1, 0);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.r, 0x87 / 255.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.g, 0xce / 255.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.b, 0xeb / 255.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.a, 0.5, 1e-6);

  g_assert_cmpint (shapes[1]->type, ==, KM_SHAPE_BOX);
  assert_vec3 (shapes[1]->size, 0.01, 0.02, 0.03);
  assert_vec3 (shapes[1]->transform.pos, 0, 0, 0.1);
  g_assert_cmpfloat_with_epsilon (shapes[1]->color.r, 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[1]->color.g, 0xd7 / 255.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[1]->color.b, 0.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[1]->color.a, 1.0, 1e-6);

  g_assert_cmpint (shapes[2]->type, ==, KM_SHAPE_SPHERE);
  g_assert_cmpfloat_with_epsilon (shapes[2]->radius, 0.005, EPS);
  g_assert_cmpfloat_with_epsilon (shapes[2]->color.r, 0.1, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[2]->color.b, 0.3, 1e-6);
}

/* Section 3: the consumer checks a reference's type, an error for that object only: an
 * attach whose shape is no shape is skipped, a vmat that is no vmat leaves the default
 * colour; both with a warning at the path. */
static void
test_attach_wrong_types (void)
{
  static const char xml[] =
    "<namespace name=\"s\">\n"
    "  <vmat name=\"v\" colorname=\"red\"/>\n"
    "  <sphere name=\"ball\" radius=\"0.1\"/>\n"
    "  <body name=\"b\" dynamical=\"false\"><connector name=\"c\"/></body>\n"
    "  <attach connector=\"b/c\" shape=\"v\"/>\n"
    "  <attach connector=\"b/c\" shape=\"ball\" vmat=\"ball\"/>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmScenebuilderModel) model =
    test_util_scenebuilder_load ("s.xml", xml, strlen (xml), warnings, &error);
  KmShape * const *shapes;
  guint n = 0;
  KmColor standard = KM_COLOR_DEFAULT;

  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_cmpstr (warnings->pdata[0], ==,
                   "s.xml:5:34: “shape” must name a shape (box, sphere, cylinder, capsule or "
                   "mesh), not a <vmat>; the attach is skipped");
  g_assert_cmpstr (warnings->pdata[1], ==,
                   "s.xml:6:46: “vmat” must name a <vmat>, not a <sphere>; the default colour "
                   "is used");
  shapes = km_skeleton_get_shapes (model->skeleton, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_SPHERE);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.r, standard.r, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.g, standard.g, 1e-6);
}

/* 1.6: a sticky unit that leaked is noted at the first value converted with it. */
static void
test_leaked_unit_position (void)
{
  static const char xml[] =
    "<namespace name=\"k\">\n"
    "  <namespace name=\"a\" unit_length=\"mm\"/>\n"
    "  <vmat name=\"v\" alpha=\"0.5\"/>\n"
    "  <body name=\"b\" dynamical=\"false\" mass=\"2\" trn=\"0 0 100\"/>\n"
    "  <body name=\"c\" dynamical=\"false\" trn=\"0 0 200\"/>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmScenebuilderModel) model =
    test_util_scenebuilder_load ("k.xml", xml, strlen (xml), warnings, &error);
  KmTransform body;

  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_cmpstr (warnings->pdata[0], ==,
                   "k.xml:4:50: the default unit of “unit_length” is inherited from an earlier "
                   "scope (Scenebuilder behaviour)");
  world_of (model, "b", NULL, &body);
  assert_vec3 (body.pos, 0, 0, 0.1);
}

/* 2.3: a unit inside parentheses does not count as explicit ("(10mm)" with mm as the
 * default is 10 µm). It is read so, with one warning per value at its first character,
 * where the default scale of the value's dimension is not 1. */
static void
test_parenthesised_unit (void)
{
  static const char one[] =
    "<namespace name=\"p\">\n"
    "  <attr unit_length=\"mm\"/>\n"
    "  <body name=\"base\" dynamical=\"false\" trn=\"0 0 (10mm)\"/>\n"
    "</namespace>\n";
  /* Nothing to say: the unit outside the parentheses, a default scale of 1 (metres; a
   * dimensionless alpha), no unit inside. */
  static const char none[] =
    "<namespace name=\"q\">\n"
    "  <attr unit_rotation=\"deg\"/>\n"
    "  <vmat name=\"v\" alpha=\"sin(30deg)\"/>\n"
    "  <body name=\"base\" dynamical=\"false\" trn=\"(1m) (10)mm 0\" rot=\"(2*45)deg@z\"/>\n"
    "</namespace>\n";
  /* An inherited value: one warning, at the <attr>, however many elements use it. */
  static const char inherited[] =
    "<namespace name=\"r\">\n"
    "  <attr unit_rotation=\"deg\" rot=\"(90deg)@z\"/>\n"
    "  <body name=\"base\" dynamical=\"false\"><connector name=\"c\"/><connector name=\"d\"/></body>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  KmScenebuilderModel *model;
  KmTransform body;

  model = test_util_scenebuilder_load ("p.xml", one, strlen (one), warnings, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_cmpstr (warnings->pdata[0], ==,
                   "p.xml:3:48: a unit inside parentheses is not explicit in Scenebuilder: "
                   "with no unit outside them, the value is scaled by the default unit as well");
  world_of (model, "base", NULL, &body);
  assert_vec3 (body.pos, 0, 0, 1e-5);
  km_scenebuilder_model_free (model);

  g_ptr_array_set_size (warnings, 0);
  model = test_util_scenebuilder_load ("q.xml", none, strlen (none), warnings, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);
  world_of (model, "base", NULL, &body);
  assert_vec3 (body.pos, 1, 0.01, 0);
  assert_quat (&body.rot, sqrt (0.5), 0, 0, sqrt (0.5));
  km_scenebuilder_model_free (model);

  g_ptr_array_set_size (warnings, 0);
  model = test_util_scenebuilder_load ("r.xml", inherited, strlen (inherited), warnings,
                                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  assert_prefix (warnings->pdata[0], "r.xml:2:34: a unit inside parentheses is not explicit");
  /* (90deg) is π/2, then in degrees: π²/360 rad. */
  world_of (model, "base", NULL, &body);
  assert_quat (&body.rot, cos (G_PI * G_PI / 720), 0, 0, sin (G_PI * G_PI / 720));
  km_scenebuilder_model_free (model);
}

/* The value language tells where a parenthesised unit stands (km_sb_*_full). */
static void
test_parenthesised_unit_values (void)
{
  KmSbUnits mm = { 0.001, 1, 1, 1 };
  KmSbUnits deg = { 1, G_PI / 180, 1, 1 };
  KmSbUnits si = KM_SB_UNITS_SI;
  KmSbValueFlags flags = KM_SB_VALUE_OK;
  gsize at = 99;
  double v = 0, values[3];
  KmQuat q;

  g_assert_true (km_sb_eval_real_full ("(10mm)", 6, KM_SB_DIM_L, &mm, &v, &flags, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_PARENTHESISED_UNIT | KM_SB_VALUE_DEFAULT_UNIT);
  g_assert_cmpfloat_with_epsilon (v, 1e-5, 1e-15);
  /* The spec's condition is literal: a unit in parentheses while the default scale is not
   * 1, even where a unit outside makes the value SI. */
  g_assert_true (km_sb_eval_real_full ("(10mm)m", 7, KM_SB_DIM_L, &mm, &v, &flags, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_PARENTHESISED_UNIT);
  g_assert_cmpfloat_with_epsilon (v, 0.01, 1e-15);
  g_assert_true (km_sb_eval_real_full ("sqrt(4[km/h])", 13, KM_SB_DIM_L_T, &mm, &v, &flags,
                                       NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_PARENTHESISED_UNIT | KM_SB_VALUE_DEFAULT_UNIT);
  g_assert_true (km_sb_eval_real_full ("(10mm)", 6, KM_SB_DIM_L, &si, &v, &flags, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_DEFAULT_UNIT);
  g_assert_true (km_sb_eval_real_full ("(10mm)", 6, KM_SB_DIM_NONE, &mm, &v, &flags, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_DEFAULT_UNIT);
  g_assert_true (km_sb_eval_real_full ("(10)mm", 6, KM_SB_DIM_L, &mm, &v, &flags, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_OK);

  g_assert_true (km_sb_parse_vector_full ("1 (2mm)  (3mm)", 3, KM_SB_DIM_L, &mm, values, &flags,
                                          &at, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_PARENTHESISED_UNIT | KM_SB_VALUE_DEFAULT_UNIT);
  g_assert_cmpuint (at, ==, 2);
  g_assert_cmpfloat_with_epsilon (values[2], 3e-6, 1e-18);
  g_assert_true (km_sb_parse_vector_full ("1mm 2mm 3mm", 3, KM_SB_DIM_L, &mm, values, &flags,
                                          &at, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_OK);
  g_assert_true (km_sb_parse_vector_full ("1 2mm 3", 3, KM_SB_DIM_L, &mm, values, &flags, &at,
                                          NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_DEFAULT_UNIT);

  g_assert_true (km_sb_parse_rotation_full ("90@z*(90deg)@x", &deg, &q, &flags, &at, NULL,
                                            NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_PARENTHESISED_UNIT | KM_SB_VALUE_DEFAULT_UNIT);
  g_assert_cmpuint (at, ==, 5);
  g_assert_true (km_sb_parse_rotation_full ("(90deg)@z", &si, &q, &flags, &at, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_DEFAULT_UNIT);
  g_assert_cmpfloat_with_epsilon (q.z, sqrt (0.5), 1e-12);
  /* The older entry point reports repairs only. */
  g_assert_true (km_sb_parse_rotation ("(90deg)@z", &deg, &q, &flags, NULL, NULL));
  g_assert_cmpint (flags, ==, KM_SB_VALUE_OK);
  g_assert_cmpfloat_with_epsilon (q.z, sin (G_PI * G_PI / 720), 1e-12);
}

/* 8.2 step 6: a jointed body's own trn/rot only guess its pose; where they disagree with
 * forward kinematics by more than 1e-6, one note, at the first such body, with how much. */
static void
test_pose_disagreement (void)
{
  static const char position[] =
    "<namespace name=\"fk\">\n"
    "  <body name=\"base\" dynamical=\"false\"><connector name=\"s\" trn=\"0 0 1\"/></body>\n"
    "  <body name=\"arm\" trn=\"0.2 0 1\"><connector name=\"p\" trn=\"0.2 0 0\"/></body>\n"
    "  <hinge name=\"j\" sock=\"base/s\" plug=\"arm/p\" pos=\"90deg\"/>\n"
    "</namespace>\n";
  /* arm's orientation (Rz 90° by FK) is 10° off; tip's position (0 -0.1 1) is off too. */
  static const char orientation[] =
    "<namespace name=\"fk\">\n"
    "  <body name=\"base\" dynamical=\"false\"><connector name=\"s\" trn=\"0 0 1\"/></body>\n"
    "  <body name=\"arm\" rot=\"80deg@z\">\n"
    "    <connector name=\"p\" trn=\"0.2 0 0\"/><connector name=\"s\" rot=\"90deg@y\"/>\n"
    "  </body>\n"
    "  <body name=\"tip\" trn=\"0 0 0\"><connector name=\"p\"/></body>\n"
    "  <hinge name=\"j\" sock=\"base/s\" plug=\"arm/p\" pos=\"90deg\"/>\n"
    "  <slider name=\"k\" sock=\"arm/s\" plug=\"tip/p\" pos=\"0.1\"/>\n"
    "</namespace>\n";
  /* The same poses stated right: the body frame (not the joint frame at the plug), through
   * the spatial ancestors (an import's pose), only what is stated (tip2 has no rot). */
  static const char consistent[] =
    "<namespace name=\"fk\">\n"
    "  <body name=\"base\" dynamical=\"false\">\n"
    "    <connector name=\"s\" trn=\"0 0 1\"/><connector name=\"m\" trn=\"1 0 0\" rot=\"90deg@z\"/>\n"
    "  </body>\n"
    "  <body name=\"arm\" trn=\"0 -0.2 1\" rot=\"90deg@z\">\n"
    "    <connector name=\"p\" trn=\"0.2 0 0\"/><connector name=\"s\" rot=\"90deg@y\"/>\n"
    "  </body>\n"
    "  <body name=\"tip\" trn=\"0 -0.1 1\" rot=\"90deg@z*90deg@y\"><connector name=\"p\"/></body>\n"
    "  <hinge name=\"j\" sock=\"base/s\" plug=\"arm/p\" pos=\"90deg\"/>\n"
    "  <slider name=\"k\" sock=\"arm/s\" plug=\"tip/p\" pos=\"0.1\"/>\n"
    "  <import name=\"w\" path=\"part\" trn=\"1 0 0\" rot=\"90deg@z\"/>\n"
    "  <hinge name=\"h\" sock=\"base/m\" plug=\"w/tip2/p\" pos=\"0.3\"/>\n"
    "  <module name=\"part\">\n"
    "    <body name=\"tip2\" trn=\"0 0 0.5\"><connector name=\"p\" trn=\"0 0 -0.5\"/></body>\n"
    "  </module>\n"
    "</namespace>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  KmScenebuilderModel *model;
  KmTransform body;

  model = test_util_scenebuilder_load ("fk.xml", position, strlen (position), warnings, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_cmpstr (warnings->pdata[0], ==,
                   "fk.xml:3:3: the position of body “arm” disagrees with forward kinematics "
                   "from the joints by 0.283 m; the joints are used");
  /* The joints win. */
  assert_body (model, "j", 0, -0.2, 1, sqrt (0.5), 0, 0, sqrt (0.5));
  km_scenebuilder_model_free (model);

  g_ptr_array_set_size (warnings, 0);
  model = test_util_scenebuilder_load ("fk.xml", orientation, strlen (orientation), warnings,
                                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_cmpstr (warnings->pdata[0], ==,
                   "fk.xml:3:3: the orientation of body “arm” disagrees with forward kinematics "
                   "from the joints by 10°; the joints are used (and 1 more body)");
  km_scenebuilder_model_free (model);

  g_ptr_array_set_size (warnings, 0);
  model = test_util_scenebuilder_load ("fk.xml", consistent, strlen (consistent), warnings,
                                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);
  world_of (model, "k", NULL, &body);
  assert_vec3 (body.pos, 0, -0.1, 1);
  world_of (model, "h", NULL, &body);
  assert_vec3 (body.pos, 1, 0, 0.5);
  km_scenebuilder_model_free (model);
}

/* No fixture scene has a false pose note; they are compared (link1's trn="0 0 100" is). */
static void
test_pose_fixtures (void)
{
  static const char * const scenes[] = {
    "scenebuilder/arm2_mm_deg.xml", "scenebuilder/attr_namespaces.xml",
    "scenebuilder/slider_gear.xml", "scenebuilder/wheels_module.xml",
    "scenebuilder-conformance/attr_clash.xml", "scenebuilder-conformance/dual_arm_torso.xml",
    "scenebuilder-conformance/fourbar_order.xml", "scenebuilder-conformance/import_pose.xml",
    "scenebuilder-conformance/legs/for_import.xml",
    "scenebuilder-conformance/mobile_manipulator/mobile_manipulator.xml",
    "scenebuilder-conformance/mobile_manipulator/modules/arm3.xml",
  };
  g_autofree char *arm2 = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                 "arm2_mm_deg.xml", NULL);
  g_autofree char *data = NULL;
  g_autoptr(GString) moved = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  KmScenebuilderModel *model;

  for (guint i = 0; i < G_N_ELEMENTS (scenes); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", scenes[i], NULL);

      g_ptr_array_set_size (warnings, 0);
      model = test_util_scenebuilder_load_file (path, warnings);
      for (guint k = 0; k < warnings->len; k++)
        if (strstr (warnings->pdata[k], "forward kinematics") != NULL)
          g_error ("%s", (char *) warnings->pdata[k]);
      km_scenebuilder_model_free (model);
    }

  /* arm2 with link1 one millimetre off. */
  data = test_util_read_file (arm2, NULL);
  moved = g_string_new (data);
  g_assert_cmpuint (g_string_replace (moved, "name=\"link1\" trn=\"0 0 100\"",
                                      "name=\"link1\" trn=\"0 0 101\"", 0), ==, 1);
  g_ptr_array_set_size (warnings, 0);
  model = test_util_scenebuilder_load ("arm2.xml", moved->str, moved->len, warnings, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_cmpstr (warnings->pdata[0], ==,
                   "arm2.xml:46:3: the position of body “link1” disagrees with forward "
                   "kinematics from the joints by 0.001 m; the joints are used");
  km_scenebuilder_model_free (model);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/ScenebuilderConformance/mobile-manipulator", test_mobile_manipulator);
  g_test_add_func ("/kinema/ScenebuilderConformance/dual-arm-torso", test_dual_arm_torso);
  g_test_add_func ("/kinema/ScenebuilderConformance/first-plug-wins", test_first_plug_wins);
  g_test_add_func ("/kinema/ScenebuilderConformance/inherited-invalid", test_inherited_invalid);
  g_test_add_func ("/kinema/ScenebuilderConformance/for-import", test_for_import);
  g_test_add_func ("/kinema/ScenebuilderConformance/import-pose", test_import_pose);
  g_test_add_func ("/kinema/ScenebuilderConformance/unknown-attributes", test_unknown_attributes);
  g_test_add_func ("/kinema/ScenebuilderConformance/joint-units", test_joint_units);
  g_test_add_func ("/kinema/ScenebuilderConformance/reference-errors", test_reference_errors);
  g_test_add_func ("/kinema/ScenebuilderConformance/lookup-rules", test_lookup_rules);
  g_test_add_func ("/kinema/ScenebuilderConformance/shapes-colours", test_shapes_colours);
  g_test_add_func ("/kinema/ScenebuilderConformance/attach-wrong-types", test_attach_wrong_types);
  g_test_add_func ("/kinema/ScenebuilderConformance/leaked-unit-position",
                   test_leaked_unit_position);
  g_test_add_func ("/kinema/ScenebuilderConformance/parenthesised-unit", test_parenthesised_unit);
  g_test_add_func ("/kinema/ScenebuilderConformance/parenthesised-unit-values",
                   test_parenthesised_unit_values);
  g_test_add_func ("/kinema/ScenebuilderConformance/pose-disagreement", test_pose_disagreement);
  g_test_add_func ("/kinema/ScenebuilderConformance/pose-fixtures", test_pose_fixtures);

  return g_test_run ();
}
