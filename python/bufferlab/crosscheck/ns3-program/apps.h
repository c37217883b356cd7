// The traffic of a bufferlab plan as ns-3 applications: TCP bulk or sized transfers, web
// (Poisson arrivals of connections), on/off bursts on one connection, UDP CBR / Poisson / bursts,
// and the sinks that count what is delivered. Each source creates its sockets itself so that
// every option of the plan (congestion control, recovery, SACK, delayed ACKs, windows) is set
// per socket, not through ns-3's global defaults.
#pragma once

#include "reno.h"
#include "stats.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <deque>
#include <functional>
#include <map>
#include <string>

namespace bl
{

using namespace ns3;

// A random variable of the plan (times in ns, sizes in bytes), drawn from an ns-3 stream so that
// RngRun selects the draws. The translation gives each its parameters in ns-3's terms.
class Dist
{
  public:
    Dist() = default;

    Dist(const Json& d, int64_t& stream)
    {
        m_kind = d["dist"].Str();
        if (m_kind == "const")
        {
            m_value = d["value"].Num();
            return;
        }
        if (m_kind == "exp")
        {
            m_rv = CreateObjectWithAttributes<ExponentialRandomVariable>("Mean", DoubleValue(d["mean"].Num()));
        }
        else if (m_kind == "uniform")
        {
            m_rv = CreateObjectWithAttributes<UniformRandomVariable>("Min", DoubleValue(d["lo"].Num()), "Max", DoubleValue(d["hi"].Num()));
        }
        else if (m_kind == "pareto")
        {
            m_rv = CreateObjectWithAttributes<ParetoRandomVariable>("Scale", DoubleValue(d["scale"].Num()), "Shape", DoubleValue(d["shape"].Num()));
        }
        else if (m_kind == "lognormal")
        {
            m_rv = CreateObjectWithAttributes<LogNormalRandomVariable>("Mu", DoubleValue(d["mu"].Num()), "Sigma", DoubleValue(d["sigma"].Num()));
        }
        else if (m_kind == "zipf")
        {
            m_value = d["unit"].Num();
            m_rv = CreateObjectWithAttributes<ZipfRandomVariable>("N", IntegerValue(d["max"].Int()), "Alpha", DoubleValue(d["s"].Num()));
        }
        else
        {
            throw std::runtime_error("config: unknown distribution " + m_kind);
        }
        m_rv->SetStream(stream++);
    }

    double Draw() const
    {
        if (m_kind == "const")
        {
            return m_value;
        }
        if (m_kind == "zipf")
        {
            return m_rv->GetValue() * m_value;
        }
        return m_rv->GetValue();
    }

  private:
    std::string m_kind = "const";
    double m_value = 0;
    Ptr<RandomVariableStream> m_rv;
};

// The TCP options of a traffic block, in ns-3's attribute names (set by the translation).
struct TcpConfig
{
    std::string cc;                                // e.g. "ns3::TcpNewReno"
    std::map<std::string, std::string> cc_attrs;   // on the congestion control
    std::map<std::string, std::string> socket;     // on the socket (both ends)
    std::string recovery = "classic";              // "classic" (RFC 6675) or "prr" (RFC 6937)
};

inline TcpConfig ReadTcpConfig(const Json& j)
{
    TcpConfig c;
    c.cc = j["cc"].Str();
    for (auto& [k, v] : j["cc_attrs"].obj)
    {
        c.cc_attrs[k] = v.Str();
    }
    for (auto& [k, v] : j["socket"].obj)
    {
        c.socket[k] = v.Str();
    }
    if (j.Has("recovery"))
    {
        c.recovery = j["recovery"].Str();
        if (c.recovery != "classic" && c.recovery != "prr")
        {
            throw std::runtime_error("config: unknown recovery " + c.recovery);
        }
    }
    return c;
}

inline Ptr<TcpSocketBase> MakeTcpSocket(Ptr<Node> node, const TcpConfig& c)
{
    Ptr<Socket> s = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
    ObjectFactory f;
    f.SetTypeId(c.cc);
    for (auto& [k, v] : c.cc_attrs)
    {
        f.Set(k, StringValue(v));
    }
    tcp->SetCongestionControlAlgorithm(f.Create<TcpCongestionOps>());
    // bufferlab recovers as RFC 6675 does (cwnd = ssthresh, send while pipe < cwnd), not with
    // PRR (RFC 6937), ns-3's default: ns-3's classic recovery with SACK is the same rule. PRR
    // stays selectable, to measure what it changes.
    if (c.recovery == "prr")
    {
        tcp->SetRecoveryAlgorithm(CreateObject<TcpPrrRecovery>());
    }
    else
    {
        tcp->SetRecoveryAlgorithm(CreateObject<TcpClassicRecovery>());
    }
    for (auto& [k, v] : c.socket)
    {
        tcp->SetAttribute(k, StringValue(v));
    }
    return tcp;
}

// RTT samples as bufferlab's sender takes them from echoed timestamps: one per ACK that advances
// the cumulative ACK, timed from the send of the oldest segment it newly covers (the one whose
// timestamp the receiver echoes, RFC 7323 §4.3, so a delayed ACK's wait is in the sample).
// ns-3 runs without timestamps here (their option bytes would lengthen its packets), so a
// retransmitted segment, whose ACK is ambiguous, is not timed (Karn). Sequence numbers are ns-3's
// 32 bits; transfers here stay far below 4 GiB.
class RttMeter
{
  public:
    explicit RttMeter(FlowStats* st)
        : m_st(st)
    {
    }

    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        uint32_t len = p->GetSize();
        if (len == 0)
        {
            return;
        }
        uint32_t seq = h.GetSequenceNumber().GetValue();
        uint32_t end = seq + len;
        if (g_window.Now())
        {
            m_st->pkts_sent++;
        }
        if (m_any && seq < m_high)
        {
            if (g_window.Now())
            {
                m_st->retransmits++;
            }
            for (auto& s : m_sent)
            {
                if (s.end > seq && s.start < end)
                {
                    s.timed = false;
                }
            }
            if (end <= m_high)
            {
                return;
            }
        }
        m_sent.push_back({std::max(seq, m_any ? m_high : seq), end, Simulator::Now(), !(m_any && seq < m_high)});
        m_high = end;
        m_any = true;
    }

    void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (!(h.GetFlags() & TcpHeader::ACK))
        {
            return;
        }
        uint32_t ack = h.GetAckNumber().GetValue();
        bool popped = false;
        Sent oldest{};
        while (!m_sent.empty() && m_sent.front().end <= ack)
        {
            if (!popped)
            {
                oldest = m_sent.front();
            }
            m_sent.pop_front();
            popped = true;
        }
        if (popped && oldest.timed && g_window.Now())
        {
            m_st->rtt.Add((Simulator::Now() - oldest.at).GetSeconds());
        }
    }

    void OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
    {
        if (now == TcpSocketState::CA_LOSS && g_window.Now())
        {
            m_st->timeouts++;
        }
    }

    void Attach(Ptr<TcpSocketBase> s)
    {
        s->TraceConnectWithoutContext("Tx", MakeCallback(&RttMeter::OnTx, this));
        s->TraceConnectWithoutContext("Rx", MakeCallback(&RttMeter::OnRx, this));
        s->TraceConnectWithoutContext("CongState", MakeCallback(&RttMeter::OnCongState, this));
    }

    // The end of the highest byte sent so far (ns-3's sequence numbers).
    uint32_t High() const { return m_any ? m_high : 0; }

  private:
    struct Sent
    {
        uint32_t start;
        uint32_t end;
        Time at;
        bool timed;
    };

    FlowStats* m_st;
    std::deque<Sent> m_sent;
    uint32_t m_high = 0;
    bool m_any = false;
};

// Counts the application bytes a receiving socket hands up, in order (TCP) or per datagram
// payload (UDP); one sink per flow, on the flow's own port. TCP sinks close when the peer does.
class Sink : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bl::Sink").SetParent<Application>().AddConstructor<Sink>();
        return tid;
    }

    void Setup(FlowStats* st, uint16_t port, bool tcp, const TcpConfig& cfg)
    {
        m_st = st;
        m_port = port;
        m_tcp = tcp;
        m_cfg = cfg;
    }

  private:
    FlowStats* m_st = nullptr;
    uint16_t m_port = 0;
    bool m_tcp = true;
    TcpConfig m_cfg;
    Ptr<Socket> m_listen;
    std::vector<Ptr<Socket>> m_accepted;

    void StartApplication() override
    {
        if (m_tcp)
        {
            m_listen = MakeTcpSocket(GetNode(), m_cfg);
        }
        else
        {
            m_listen = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        }
        m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        m_listen->SetRecvCallback(MakeCallback(&Sink::OnRecv, this));
        if (m_tcp)
        {
            m_listen->Listen();
            m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                        MakeCallback(&Sink::OnAccept, this));
        }
    }

    void StopApplication() override {}

    void OnAccept(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&Sink::OnRecv, this));
        // The Rx trace fires before the segment is processed: the receive buffer still shows
        // the next byte expected before it.
        s->TraceConnectWithoutContext("Rx", MakeCallback(&Sink::OnSegment, this));
        s->SetCloseCallbacks(MakeCallback(&Sink::OnClose, this), MakeCallback(&Sink::OnClose, this));
        m_accepted.push_back(s);
    }

    void OnClose(Ptr<Socket> s) { s->Close(); }

    void OnSegment(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
    {
        if (p->GetSize() == 0 || !g_window.Now())
        {
            return;
        }
        SequenceNumber32 lo = h.GetSequenceNumber();
        SequenceNumber32 hi = lo + p->GetSize();
        Ptr<TcpRxBuffer> rx = s->GetRxBuffer();
        bool held = hi <= rx->NextRxSequence();
        // Or wholly inside a block held out of order (the receive buffer keeps that list with
        // or without SACK).
        for (const auto& [left, right] : rx->GetSackList())
        {
            held = held || (lo >= left && hi <= right);
        }
        if (held)
        {
            m_st->duplicates++;
        }
    }

    void OnRecv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            if (p->GetSize() == 0)
            {
                break;
            }
            if (g_window.Now())
            {
                m_st->bytes_delivered += p->GetSize();
            }
        }
    }
};

// A TCP sender. Modes: "bulk" (size 0: never ends; otherwise one transfer of size bytes),
// "web" (a new connection per Poisson arrival, each of a drawn size), "onoff" (bursts of a drawn
// size on one connection, each after the previous is acknowledged and an idle time drawn).
class TcpSource : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bl::TcpSource").SetParent<Application>().AddConstructor<TcpSource>();
        return tid;
    }

    std::string mode = "bulk";
    uint64_t size = 0;
    Dist size_dist;
    Dist idle_ns;
    double arrival_rate = 0;
    int64_t stream = 0;

    void Setup(FlowStats* st, Address dst, const TcpConfig& cfg, uint32_t mss)
    {
        m_st = st;
        m_dst = dst;
        m_cfg = cfg;
        m_mss = mss;
    }

  private:
    struct Conn
    {
        Ptr<TcpSocketBase> sock;
        std::unique_ptr<RttMeter> meter; // each connection has its own sequence space
        uint64_t to_write = 0;           // bytes the application still has to hand to the socket
        uint64_t written = 0;            // bytes handed so far
        bool infinite = false;
        bool close_when_done = false;
    };

    FlowStats* m_st = nullptr;
    Address m_dst;
    TcpConfig m_cfg;
    uint32_t m_mss = 1460;
    std::deque<Conn> m_conns;
    Ptr<ExponentialRandomVariable> m_gap;
    uint32_t m_burst_target = 0; // on/off: cumulative ACK that ends the current burst

    void StartApplication() override
    {
        m_st->start_s = Simulator::Now().GetSeconds();
        if (mode == "web")
        {
            m_gap = CreateObjectWithAttributes<ExponentialRandomVariable>("Mean", DoubleValue(1.0 / arrival_rate));
            m_gap->SetStream(stream);
            Arrival();
            return;
        }
        Conn& c = Open(mode == "bulk" && size == 0, mode == "bulk" ? size : 0, mode == "bulk");
        if (mode == "onoff")
        {
            // The first burst is written once connected (OnConnected).
            c.sock->TraceConnectWithoutContext("Rx", MakeCallback(&TcpSource::OnOffAck, this));
        }
    }

    void StopApplication() override {}

    Conn& Open(bool infinite, uint64_t bytes, bool close_when_done)
    {
        Conn c;
        c.sock = MakeTcpSocket(GetNode(), m_cfg);
        c.meter = std::make_unique<RttMeter>(m_st);
        c.meter->Attach(c.sock);
        c.infinite = infinite;
        c.to_write = bytes;
        c.close_when_done = close_when_done && !infinite;
        m_conns.push_back(std::move(c));
        Ptr<TcpSocketBase> s = m_conns.back().sock;
        s->Bind();
        s->SetConnectCallback(MakeCallback(&TcpSource::OnConnected, this), MakeCallback(&TcpSource::OnFailed, this));
        s->SetSendCallback(MakeCallback(&TcpSource::OnSpace, this));
        s->Connect(m_dst);
        return m_conns.back();
    }

    Conn* Find(Ptr<Socket> s)
    {
        for (auto& c : m_conns)
        {
            if (PeekPointer(c.sock) == PeekPointer(s))
            {
                return &c;
            }
        }
        return nullptr;
    }

    void OnConnected(Ptr<Socket> s)
    {
        if (mode == "onoff")
        {
            Burst();
            return;
        }
        Fill(s);
    }

    void OnFailed(Ptr<Socket>) {}

    void OnSpace(Ptr<Socket> s, uint32_t) { Fill(s); }

    // Keep at most 64 segments written but not yet sent, so that a 1 GiB send buffer does not
    // mean 1 GiB of packets held in memory; the socket asks for more on every ACK.
    void Fill(Ptr<Socket> s)
    {
        Conn* c = Find(s);
        if (c == nullptr)
        {
            return;
        }
        Ptr<TcpSocketBase> t = c->sock;
        const uint64_t backlog = 64ull * m_mss;
        while (c->infinite || c->to_write > 0)
        {
            Ptr<TcpTxBuffer> buf = t->GetTxBuffer();
            SequenceNumber32 sentTo(std::max(buf->HeadSequence().GetValue(), c->meter->High()));
            uint32_t unsent = buf->TailSequence() > sentTo ? buf->TailSequence() - sentTo : 0;
            if (unsent >= backlog)
            {
                break;
            }
            uint64_t n = std::min<uint64_t>(backlog - unsent, t->GetTxAvailable());
            if (!c->infinite)
            {
                n = std::min<uint64_t>(n, c->to_write);
            }
            if (n == 0)
            {
                break;
            }
            int r = t->Send(Create<Packet>(static_cast<uint32_t>(n)), 0);
            if (r <= 0)
            {
                break;
            }
            c->written += r;
            if (!c->infinite)
            {
                c->to_write -= r;
            }
        }
        if (!c->infinite && c->to_write == 0 && c->close_when_done)
        {
            c->close_when_done = false;
            t->Close(); // the FIN goes once the buffer has drained
        }
    }

    void Arrival()
    {
        uint64_t bytes = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size_dist.Draw())));
        Open(false, bytes, true);
        Simulator::Schedule(Seconds(m_gap->GetValue()), &TcpSource::Arrival, this);
    }

    void Burst()
    {
        Conn& c = m_conns.front();
        uint64_t bytes = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size_dist.Draw())));
        c.to_write += bytes;
        // ns-3's sequence space starts at 0 and the SYN takes one: byte k is acknowledged by k+1.
        m_burst_target = static_cast<uint32_t>(c.written + c.to_write + 1);
        Fill(c.sock);
    }

    void OnOffAck(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (m_burst_target != 0 && (h.GetFlags() & TcpHeader::ACK) && h.GetAckNumber().GetValue() >= m_burst_target)
        {
            m_burst_target = 0;
            Simulator::Schedule(NanoSeconds(static_cast<int64_t>(std::max(0.0, idle_ns.Draw()))), &TcpSource::Burst, this);
        }
    }
};

// A UDP source: constant-bit-rate or Poisson spacing at rate_pps, or bursts of `burst_pkts`
// packets paced at that rate every `burst_every`. `size` is the IP packet (payload = size - 28).
class UdpSource : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bl::UdpSource").SetParent<Application>().AddConstructor<UdpSource>();
        return tid;
    }

    double rate_pps = 1;
    uint32_t size = 1500;
    bool poisson = false;
    uint64_t burst_pkts = 0;
    Time burst_every;
    int ttl = 64;
    int64_t stream = 0;

    void Setup(FlowStats* st, Address dst)
    {
        m_st = st;
        m_dst = dst;
    }

  private:
    FlowStats* m_st = nullptr;
    Address m_dst;
    Ptr<Socket> m_sock;
    Ptr<ExponentialRandomVariable> m_exp;
    uint64_t m_in_burst = 0;
    EventId m_next;

    void StartApplication() override
    {
        m_st->start_s = Simulator::Now().GetSeconds();
        m_sock = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_sock->Bind();
        m_sock->SetIpTtl(static_cast<uint8_t>(ttl));
        m_sock->Connect(m_dst);
        m_exp = CreateObjectWithAttributes<ExponentialRandomVariable>("Mean", DoubleValue(1.0 / rate_pps));
        m_exp->SetStream(stream);
        if (burst_pkts > 0)
        {
            StartBurst();
        }
        else
        {
            SendOne();
        }
    }

    bool m_stopped = false;

    void StopApplication() override
    {
        m_stopped = true;
        m_next.Cancel();
    }

    void Emit()
    {
        m_sock->Send(Create<Packet>(size - 28));
        if (g_window.Now())
        {
            m_st->pkts_sent++;
        }
    }

    void SendOne()
    {
        Emit();
        double gap = poisson ? m_exp->GetValue() : 1.0 / rate_pps;
        m_next = Simulator::Schedule(Seconds(gap), &UdpSource::SendOne, this);
    }

    void StartBurst()
    {
        if (m_stopped)
        {
            return;
        }
        m_in_burst = burst_pkts;
        BurstPacket();
        Simulator::Schedule(burst_every, &UdpSource::StartBurst, this);
    }

    void BurstPacket()
    {
        if (m_in_burst == 0 || m_stopped)
        {
            return;
        }
        Emit();
        m_in_burst--;
        m_next = Simulator::Schedule(Seconds(1.0 / rate_pps), &UdpSource::BurstPacket, this);
    }
};

} // namespace bl
