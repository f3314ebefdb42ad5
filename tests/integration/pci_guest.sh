# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# A Linux guest under QEMU (TCG: no KVM needed) whose two NICs are
# emulated PCI devices that DPDK drives through vfio-pci, behind QEMU's
# emulated Intel IOMMU. Sourced by test_pci_nic.sh after lib.sh.
#
# Everything comes from Debian packages: the kernel is the host's
# /boot/vmlinuz-VERSION (linux-image-amd64), the initramfs is made here
# from busybox-static and that kernel's 9p/virtio modules, and the root
# filesystem is the host's own, shared read-only over virtio-9p. The guest
# gets tmpfs where it writes (/run, /var/run, /dev/hugepages) and the
# test's work directory ($WORK) shared read-write at the same path, which
# is how results come back. Its console goes to $WORK/console.log.
#
#   pci_guest_boot ACC UND GUEST-CMD    start QEMU in the background:
#       ACC, UND: e1000, e1000e or virtio (virtio-net-pci), the models of
#       0000:00:03.0 and 0000:00:05.0 (two access NICs, host taps
#       $PG_TAP_ACC and $PG_TAP_AC2) and 0000:00:04.0 (underlay, host tap
#       $PG_TAP_UND). Behind a PCIe-to-PCI bridge (0000:00:06.0) sit two
#       more e1000 with no backend, 0000:01:01.0 and 0000:01:02.0: one
#       IOMMU group, for the "group not viable" case. GUEST-CMD runs as
#       root in the guest, chrooted into the host's filesystem; when it
#       returns the guest powers off.
#   pci_guest_taps NS_ACC NS_AC2 NS_UND move the taps into the namespaces
#   pci_guest_wait FILE SECONDS         wait for the guest to create FILE
#   pci_guest_stop [SECONDS]            wait for the guest to power off,
#                                       then kill QEMU if it has not
#
# Timings under TCG on a quiet 2-core machine: from QEMU's start to tepd
# running in the guest about 40 s (the kernel, then tepd's EAL: every PMD
# of the Debian package loaded over 9p, vfio through the emulated IOMMU);
# two to three times that under load.

PG_KVER=${PG_KVER:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1 | sed 's|/boot/vmlinuz-||')}
PG_KERNEL=/boot/vmlinuz-$PG_KVER
PG_TAP_ACC=tpa$TAG
PG_TAP_AC2=tpb$TAG
PG_TAP_UND=tpu$TAG
PG_QEMU_PID=
PG_ACC_PCI=0000:00:03.0
PG_AC2_PCI=0000:00:05.0
PG_UND_PCI=0000:00:04.0
# One IOMMU group of two devices (a conventional PCI bus hides which
# device behind its bridge made a request, so the IOMMU cannot tell them
# apart): the first for vfio-pci, the other left to a kernel driver.
PG_GRP_PCI=0000:01:01.0
PG_GRP_OTHER_PCI=0000:01:02.0

# pci_guest_check: exit 77 (skipped) when something the guest needs is
# missing.
pci_guest_check() {
	local f
	for f in /usr/bin/qemu-system-x86_64 /bin/busybox "$PG_KERNEL" \
		 /usr/bin/dpdk-devbind.py /dev/net/tun; do
		if [ ! -e "$f" ]; then
			echo "skipped: $f missing (qemu-system-x86, busybox-static, linux-image-amd64, dpdk)"
			exit 77
		fi
	done
	if [ ! -d "/lib/modules/$PG_KVER/kernel/drivers/vfio" ]; then
		echo "skipped: /lib/modules/$PG_KVER has no vfio modules"
		exit 77
	fi
	if ! /bin/busybox --list | grep -qx switch_root; then
		echo "skipped: /bin/busybox is not busybox-static's"
		exit 77
	fi
}

# The initramfs: busybox, the modules that mount the host's root over
# virtio-9p, and an /init that mounts it and runs the guest command there.
# The guest's later modules (vfio-pci ...) come from the host's
# /lib/modules over 9p: the same kernel version.
pci_guest_initramfs() {
	local out=$1 d=$WORK/initramfs m
	rm -rf "$d"
	mkdir -p "$d"/bin "$d"/proc "$d"/sys "$d"/dev "$d"/host "$d"/mod
	cp /bin/busybox "$d/bin/busybox"
	: >"$d/mod/order"
	for m in $(for m in virtio_pci 9pnet_virtio 9p; do
			modprobe -S "$PG_KVER" --show-depends "$m"
		   done | awk '$1 == "insmod" { print $2 }'); do
		grep -qx "${m##*/}" "$d/mod/order" && continue
		cp "$m" "$d/mod/"
		echo "${m##*/}" >>"$d/mod/order"
	done
	cat >"$d/init" <<-'INIT'
	#!/bin/busybox sh
	/bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	for m in $(cat /mod/order); do insmod /mod/$m; done
	arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p"; }
	work=$(arg tepwork)
	# the 9p transports appear once virtio_pci has probed the devices
	for i in $(seq 100); do
		[ "$(ls /sys/bus/virtio/drivers/9pnet_virtio 2>/dev/null | grep -c virtio)" -ge 2 ] && break
		sleep 0.1
	done
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /host ||
		{ echo "PCI-GUEST: cannot mount the host's root"; poweroff -f; }
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 work "/host$work" ||
		{ echo "PCI-GUEST: cannot mount $work"; poweroff -f; }
	mount -t proc proc /host/proc
	mount -t sysfs sys /host/sys
	mount -t devtmpfs dev /host/dev
	mount -t tmpfs -o mode=0755 tmpfs /host/run
	mount -t tmpfs tmpfs /host/var/tmp
	mkdir -p /host/dev/hugepages
	mount -t hugetlbfs nodev /host/dev/hugepages
	echo "PCI-GUEST: up, running $(arg tepcmd | tr , ' ')"
	chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		/bin/bash -c "$(arg tepcmd | tr , ' ')" </dev/console >/dev/console 2>&1
	echo "PCI-GUEST: done, status $?"
	sync
	poweroff -f
	INIT
	chmod +x "$d/init"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
}

# pci_guest_device MODEL: QEMU's -device for one NIC of MODEL
pci_guest_device() {
	case $1 in
	e1000|e1000e) echo "$1" ;;
	# Modern virtio only, behind the IOMMU like the others: without
	# iommu_platform the device would take the IOVAs vfio gives it for
	# guest-physical addresses.
	virtio) echo virtio-net-pci,disable-legacy=on,iommu_platform=on ;;
	*) echo "pci_guest_boot: model $1?" >&2; return 1 ;;
	esac
}

# pci_guest_boot ACC-MODEL UND-MODEL GUEST-CMD: GUEST-CMD must have no
# spaces other than between words and no commas (it travels on the kernel
# command line with spaces as commas).
pci_guest_boot() {
	local acc und cmd=$3
	acc=$(pci_guest_device "$1") && und=$(pci_guest_device "$2") || return 1
	# The tap's vnet header only for virtio: through it the host kernel
	# hands over partial checksums (what a VM's virtio-net gets). QEMU's
	# e1000e also reads it, and then TCP from the kernel peer did not get
	# through (its SYN-ACKs were lost; not pursued): the Intel models get
	# complete frames, as from a wire.
	local accv=off undv=off
	[ "$1" = virtio ] && accv=on
	[ "$2" = virtio ] && undv=on
	pci_guest_initramfs "$WORK/initramfs.gz"
	# q35 with an emulated VT-d: interrupt remapping needs the split
	# irqchip, caching-mode lets vfio in the guest map DMA through it.
	qemu-system-x86_64 -machine q35,kernel-irqchip=split -accel tcg \
		-cpu max -smp 2 -m 1536 \
		-device intel-iommu,intremap=on,caching-mode=on \
		-display none -monitor none -no-reboot -nodefaults \
		-serial "file:$WORK/console.log" \
		-kernel "$PG_KERNEL" -initrd "$WORK/initramfs.gz" \
		-append "console=ttyS0 panic=-1 intel_iommu=on iommu=pt hugepagesz=2M hugepages=384 tepwork=$WORK tepcmd=${cmd// /,}" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev local,id=work,path="$WORK",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=work,mount_tag=work \
		-netdev tap,id=acc,ifname="$PG_TAP_ACC",script=no,downscript=no,vnet_hdr=$accv \
		-device "$acc,netdev=acc,mac=52:54:00:00:00:03,bus=pcie.0,addr=0x3" \
		-netdev tap,id=und,ifname="$PG_TAP_UND",script=no,downscript=no,vnet_hdr=$undv \
		-device "$und,netdev=und,mac=52:54:00:00:00:04,bus=pcie.0,addr=0x4" \
		-netdev tap,id=ac2,ifname="$PG_TAP_AC2",script=no,downscript=no,vnet_hdr=$accv \
		-device "$acc,netdev=ac2,mac=52:54:00:00:00:05,bus=pcie.0,addr=0x5" \
		-device pcie-pci-bridge,id=pbr,bus=pcie.0,addr=0x6 \
		-device e1000,bus=pbr,addr=0x1,mac=52:54:00:00:01:01 \
		-device e1000,bus=pbr,addr=0x2,mac=52:54:00:00:01:02 \
		>"$WORK/qemu.log" 2>&1 &
	PG_QEMU_PID=$!
	echo "$PG_QEMU_PID" >"$WORK/qemu.pid"
}

# pci_guest_taps NS_ACC NS_UND: QEMU made the taps in this namespace;
# each goes where its peer is (the tap stays attached to QEMU).
pci_guest_taps() {
	local t
	for t in $(seq 100); do
		ip link show "$PG_TAP_ACC" >/dev/null 2>&1 &&
			ip link show "$PG_TAP_AC2" >/dev/null 2>&1 &&
			ip link show "$PG_TAP_UND" >/dev/null 2>&1 && break
		kill -0 "$PG_QEMU_PID" 2>/dev/null ||
			{ echo "QEMU exited:"; cat "$WORK/qemu.log"; return 1; }
		sleep 0.1
	done
	ip link set "$PG_TAP_ACC" netns "$1"
	ip link set "$PG_TAP_AC2" netns "$2"
	ip link set "$PG_TAP_UND" netns "$3"
}

# pci_guest_wait FILE SECONDS: 0 once FILE exists; 1 if the guest stopped
# or the time ran out first.
pci_guest_wait() {
	local i
	for i in $(seq "$2"); do
		[ -e "$1" ] && return 0
		kill -0 "$PG_QEMU_PID" 2>/dev/null || { [ -e "$1" ]; return; }
		sleep 1
	done
	return 1
}

pci_guest_stop() {
	local i
	[ -n "$PG_QEMU_PID" ] || return 0
	for i in $(seq "${1:-60}"); do
		kill -0 "$PG_QEMU_PID" 2>/dev/null || break
		sleep 1
	done
	kill "$PG_QEMU_PID" 2>/dev/null || true
	wait "$PG_QEMU_PID" 2>/dev/null || true
	PG_QEMU_PID=
}
