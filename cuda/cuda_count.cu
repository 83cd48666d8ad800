/* cuda_count.cu - the number of CUDA devices, for C callers (cuda_api.h). */
#include "cuda_api.h"

#include <cuda_runtime.h>

extern "C" int texfdtd_cuda_device_count(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}
