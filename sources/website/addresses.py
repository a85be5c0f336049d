"""Which addresses a source may connect to: public ones, plus the allow-list
(PARLEY_SOURCES_ALLOWED_NETWORKS). A host is resolved once, the address checked, and that very address
connected to (`transport`), so a name that later resolves elsewhere (DNS rebinding) gains nothing."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from core.errors import ErrorKind, ParleyError

# (host, port) -> the host's addresses. The one part tests inject: this machine has no DNS.
Resolver = Callable[[str, int], Sequence[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Cloud metadata services, named although their ranges (link-local, unique-local) are refused anyway.
METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)


class AddressRefused(ParleyError):
    """The host resolves to an address no source may reach (private, loopback, metadata...)."""

    code = "address_refused"
    kind = ErrorKind.FORBIDDEN


class ResolutionFailed(ParleyError):
    code = "dns"
    kind = ErrorKind.UNAVAILABLE


def system_resolver(host: str, port: int) -> Sequence[str]:
    """The operating system's resolver (getaddrinfo), every address it gives."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ResolutionFailed(f"{host} could not be resolved: {exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class AddressPolicy:
    """The allow-list, parsed: networks (CIDRs, single addresses) and host names."""

    networks: tuple[IPNetwork, ...] = ()
    hostnames: frozenset[str] = frozenset()

    @classmethod
    def from_entries(cls, entries: Iterable[str]) -> AddressPolicy:
        networks: list[IPNetwork] = []
        hostnames: set[str] = set()
        for entry in (entry.strip() for entry in entries):
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hostnames.add(entry.lower().rstrip("."))
        return cls(networks=tuple(networks), hostnames=frozenset(hostnames))

    def allowed(self, host: str, address: IPAddress) -> bool:
        if host.lower().rstrip(".") in self.hostnames:
            return True
        if any(
            address in network for network in self.networks if network.version == address.version
        ):
            return True
        return address_is_public(address)


def address_is_public(address: IPAddress) -> bool:
    """Globally routable unicast, and not a metadata service; an IPv4-mapped IPv6 address is judged as
    the IPv4 address it carries."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address in METADATA_ADDRESSES or address.is_multicast:
        return False
    return address.is_global


def address_choose(*, host: str, port: int, resolver: Resolver, policy: AddressPolicy) -> str:
    """The one address to connect to: resolved once (an address literal is not resolved), and refused
    when any address of the host is off limits (a name mixing public and private addresses is not
    trusted with either)."""
    literal = host.strip("[]")
    try:
        candidates: Sequence[str] = [str(ipaddress.ip_address(literal))]
    except ValueError:
        try:
            candidates = resolver(host, port)
        except ResolutionFailed:
            raise
        except (OSError, LookupError, UnicodeError) as exc:
            raise ResolutionFailed(f"{host} could not be resolved: {exc}") from exc
    if not candidates:
        raise ResolutionFailed(f"{host} has no address.")
    for candidate in candidates:
        try:
            address = ipaddress.ip_address(candidate.split("%", 1)[0])
        except ValueError as exc:
            raise ResolutionFailed(f"{host} resolved to {candidate!r}, not an address.") from exc
        if not policy.allowed(literal, address):
            raise AddressRefused(
                f"{host} resolves to {address}, an address sources may not reach "
                "(add it to PARLEY_SOURCES_ALLOWED_NETWORKS to allow it).",
                extra={"host": host, "address": str(address)},
            )
    return candidates[0].split("%", 1)[0]
