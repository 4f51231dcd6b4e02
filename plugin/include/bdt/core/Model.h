// Moved to <bdt/core/model/Model.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/model/Model.h>
