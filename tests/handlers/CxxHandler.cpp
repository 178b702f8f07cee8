/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * A minimal handler written in C++, for the test that KM_BODY_HANDLER_DEFINE gives a C++
 * module an unmangled, exported factory (and builds without warnings under g++).
 */

#include <cstring>

#include "km-body-handler-abi.h"

namespace
{
struct Instance
{
  int attached;
};

int
initialize (void                        *instance,
            const KmBodyHandlerSkeleton *,
            KmBodyHandlerLogFunc         log,
            void                        *log_data)
{
  static_cast<Instance *> (instance)->attached = 1;
  log (log_data, KM_BODY_HANDLER_LOG_INFO, "C++ handler initialized");
  return 1;
}

KmBodyHandlerClass
make_class ()
{
  KmBodyHandlerClass k;

  std::memset (&k, 0, sizeof k);
  k.abi_version = KM_BODY_HANDLER_ABI_VERSION;
  k.struct_size = sizeof k;
  k.name = "CxxHandler";
  k.instance_size = sizeof (Instance);
  k.initialize = initialize;
  return k;
}

const KmBodyHandlerClass cxx_class = make_class ();
}

KM_BODY_HANDLER_DEFINE (cxx_class)
