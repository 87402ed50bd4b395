# SPDX-License-Identifier: GPL-2.0
# QEMU configuration for the revoke KUnit suites:
#   tools/testing/kunit/kunit.py run --arch=x86_64 \
#       --qemu_config=kunit/qemu_x86_64.py --kunitconfig=kunit/.kunitconfig
# Two CPUs, so that the drain and race cases really run concurrently.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SMP=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 preempt=full',
			   extra_qemu_params=['-smp', '2'])
