// Moved to <bdt/core/base/Prefetch.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/base/Prefetch.h>
