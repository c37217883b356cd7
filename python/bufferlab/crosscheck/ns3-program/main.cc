// bufferlab-ns3: runs a bufferlab plan in ns-3 and writes what bufferlab's summary reports.
//
//     bufferlab-ns3 CONFIG.json RESULT.json
//
// CONFIG is the plan as bufferlab's translation lowers it to ns-3's terms
// (python/bufferlab/crosscheck/translate.py: attribute names and values, ns-3 TypeIds, each
// choice explained there). This program only builds what it is told:
//   * nodes with the Internet stack, routes by ns-3's global routing (shortest paths);
//   * for each link direction a point-to-point device at the given rate, a propagation delay per
//     direction (ns-3's channel has one delay for both, so a small channel subclass adds the
//     second), a one-packet device queue and the plan's queue disc at its head;
//   * the traffic, each flow on its own port, with apps.h's sources and sinks;
// and measures over the plan's window (stats.h) from trace sources.
#include "apps.h"
#include "json.h"
#include "stats.h"

#include "ns3/core-module.h"
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <unordered_map>

using namespace ns3;

namespace bl
{

Window g_window;

// A point-to-point channel whose two directions have their own propagation delay.
class TwoDelayChannel : public PointToPointChannel
{
  public:
    Time delay_ab; // from device 0 to device 1
    Time delay_ba;

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override
    {
        bool fromA = GetPointToPointDevice(0) == src;
        Ptr<PointToPointNetDevice> dst = GetPointToPointDevice(fromA ? 1 : 0);
        Time delay = fromA ? delay_ab : delay_ba;
        Simulator::ScheduleWithContext(dst->GetNode()->GetId(), txTime + delay, &PointToPointNetDevice::Receive, dst, p->Copy());
        return true;
    }
};

// One direction of a link: its port (queue disc + device queue) and its wire.
struct Port
{
    std::string name; // "FROM->TO"
    std::string discipline;
    double rate_bps = 0;
    double delay_s = 0;
    Json limit; // as the plan gives it, echoed in the results

    // queue
    uint64_t arrivals = 0;
    uint64_t enqueued = 0;
    uint64_t dropped = 0;
    std::map<std::string, uint64_t> drops_by_reason;
    Samples sojourn;
    TimeAverage occ_pkts;
    TimeAverage occ_bytes;
    TimeAverage occ_dev; // the device queue's share of occ_pkts
    uint32_t qdisc_pkts = 0;
    uint32_t qdisc_bytes = 0;
    uint32_t dev_pkts = 0;
    uint32_t dev_bytes = 0;
    // By packet object, until its transmission starts: the queue disc hands the device the same
    // Packet (headers are added in place). Not by uid: ns-3 keeps the uid of the application's
    // write in every TCP segment cut from it.
    std::unordered_map<const Packet*, Time> enqueued_at;

    // wire
    Time tx_begin;
    double busy_s = 0;
    uint64_t bytes_sent = 0;
    uint64_t pkts_sent = 0;

    void Occupancy()
    {
        occ_pkts.Set(qdisc_pkts + dev_pkts);
        occ_dev.Set(dev_pkts);
        // The device queue holds PPP frames: 2 B more than the IP packet.
        occ_bytes.Set(static_cast<double>(qdisc_bytes) + dev_bytes - 2.0 * dev_pkts);
    }

    void OnEnqueue(Ptr<const QueueDiscItem> item)
    {
        enqueued_at[PeekPointer(item->GetPacket())] = Simulator::Now();
        if (g_window.Now())
        {
            arrivals++;
            enqueued++;
        }
    }

    void OnDropBefore(Ptr<const QueueDiscItem>, const char* reason)
    {
        if (g_window.Now())
        {
            arrivals++;
            dropped++;
            drops_by_reason[reason]++;
        }
    }

    void OnDropAfter(Ptr<const QueueDiscItem> item, const char* reason)
    {
        enqueued_at.erase(PeekPointer(item->GetPacket()));
        if (g_window.Now())
        {
            dropped++;
            drops_by_reason[reason]++;
        }
    }

    void OnQdiscPkts(uint32_t, uint32_t v)
    {
        qdisc_pkts = v;
        Occupancy();
    }

    void OnQdiscBytes(uint32_t, uint32_t v)
    {
        qdisc_bytes = v;
        Occupancy();
    }

    void OnDevPkts(uint32_t, uint32_t v)
    {
        dev_pkts = v;
        Occupancy();
    }

    void OnDevBytes(uint32_t, uint32_t v)
    {
        dev_bytes = v;
        Occupancy();
    }

    // Sojourn as bufferlab measures it: from entering the queue disc to the start of
    // transmission, so the wait in ns-3's device queue is included.
    void OnTxBegin(Ptr<const Packet> p)
    {
        Time now = Simulator::Now();
        tx_begin = now;
        auto it = enqueued_at.find(PeekPointer(p));
        if (it != enqueued_at.end())
        {
            if (g_window.Now())
            {
                sojourn.Add((now - it->second).GetSeconds());
            }
            enqueued_at.erase(it);
        }
        if (g_window.Now())
        {
            bytes_sent += p->GetSize() - 2; // IP bytes, without the PPP header
            pkts_sent++;
        }
    }

    void OnTxEnd(Ptr<const Packet>) { busy_s += g_window.Overlap(tx_begin, Simulator::Now()); }
};

struct Run
{
    Json cfg;
    NodeContainer nodes;
    std::vector<std::unique_ptr<Port>> ports;
    std::vector<std::unique_ptr<FlowStats>> flows;
    std::vector<Ipv4Address> address; // each node's first interface address
    int64_t stream = 1000;            // ns-3 stream numbers for the traffic's random variables
};

void
SetAttrs(Ptr<Object> o, const Json& attrs)
{
    for (auto& [k, v] : attrs.obj)
    {
        o->SetAttribute(k, StringValue(v.Str()));
    }
}

void
BuildPort(Run& run, Ptr<PointToPointNetDevice> dev, const Json& d, Ptr<Node> node)
{
    auto port = std::make_unique<Port>();
    Port* p = port.get();
    p->name = d["name"].Str();
    p->discipline = d["discipline"].Str();
    p->rate_bps = d["rate_bps"].Num();
    p->delay_s = d["delay_ns"].Num() / 1e9;
    p->limit = d["limit"];

    dev->SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(std::llround(d["device_rate_bps"].Num())))));
    dev->SetAttribute("Mtu", UintegerValue(run.cfg["mtu"].Int()));
    Ptr<Queue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
    q->SetAttribute("MaxSize", StringValue(std::to_string(d["device_queue_pkts"].Int()) + "p"));
    dev->SetQueue(q);
    // Flow control between the queue disc and the device, as PointToPointHelper sets it up: the
    // disc stops handing packets down while the device queue is full.
    Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
    ndqi->GetTxQueue(0)->ConnectQueueTraces(q);
    dev->AggregateObject(ndqi);
    dev->SetAddress(Mac48Address::Allocate());
    node->AddDevice(dev);

    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Port::OnDevPkts, p));
    q->TraceConnectWithoutContext("BytesInQueue", MakeCallback(&Port::OnDevBytes, p));
    dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Port::OnTxBegin, p));
    dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Port::OnTxEnd, p));
    run.ports.push_back(std::move(port));
}

void
InstallQdisc(Run& run, Port* p, Ptr<NetDevice> dev, const Json& d)
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc(d["qdisc"]["type"].Str());
    QueueDiscContainer qdc = tch.Install(dev);
    Ptr<QueueDisc> qd = qdc.Get(0);
    SetAttrs(qd, d["qdisc"]["attrs"]);
    if (d["qdisc"].Has("quantum_bytes"))
    {
        // FQ-CoDel's and FQ-PIE's quantum is no attribute in ns-3 (it defaults to the device MTU).
        auto quantum = static_cast<uint32_t>(d["qdisc"]["quantum_bytes"].Int());
        if (auto fqc = DynamicCast<FqCoDelQueueDisc>(qd))
        {
            fqc->SetQuantum(quantum);
        }
        else
        {
            DynamicCast<FqPieQueueDisc>(qd)->SetQuantum(quantum);
        }
    }
    qd->TraceConnectWithoutContext("Enqueue", MakeCallback(&Port::OnEnqueue, p));
    qd->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Port::OnDropBefore, p));
    qd->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Port::OnDropAfter, p));
    qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Port::OnQdiscPkts, p));
    qd->TraceConnectWithoutContext("BytesInQueue", MakeCallback(&Port::OnQdiscBytes, p));
}

void
BuildNetwork(Run& run)
{
    const Json& cfg = run.cfg;
    run.nodes.Create(cfg["nodes"].size());
    InternetStackHelper stack;
    stack.Install(run.nodes);
    Ipv4AddressHelper ip;
    ip.SetBase("10.0.0.0", "255.255.255.252");
    run.address.assign(cfg["nodes"].size(), Ipv4Address());
    std::vector<bool> has(cfg["nodes"].size(), false);
    for (const Json& link : cfg["links"].arr)
    {
        int a = link["a"].Int();
        int b = link["b"].Int();
        const Json& fwd = link["forward"];
        const Json& rev = link["reverse"];
        auto ch = CreateObject<TwoDelayChannel>();
        ch->delay_ab = NanoSeconds(fwd["delay_ns"].Int());
        ch->delay_ba = NanoSeconds(rev["delay_ns"].Int());
        ch->SetAttribute("Delay", TimeValue(ch->delay_ab));
        auto da = CreateObject<PointToPointNetDevice>();
        auto db = CreateObject<PointToPointNetDevice>();
        BuildPort(run, da, fwd, run.nodes.Get(a));
        Port* pa = run.ports.back().get();
        BuildPort(run, db, rev, run.nodes.Get(b));
        Port* pb = run.ports.back().get();
        da->Attach(ch);
        db->Attach(ch);
        // Random loss on a direction's wire, as bufferlab's `loss`: dropped on arrival.
        for (auto [dev, dir] : {std::pair{db, &fwd}, std::pair{da, &rev}})
        {
            if (dir->NumOr("loss", 0) > 0)
            {
                auto em = CreateObject<RateErrorModel>();
                em->SetAttribute("ErrorRate", DoubleValue((*dir)["loss"].Num()));
                em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
                em->AssignStreams(run.stream++);
                dev->SetReceiveErrorModel(em);
            }
        }
        NetDeviceContainer devs;
        devs.Add(da);
        devs.Add(db);
        InstallQdisc(run, pa, da, fwd);
        InstallQdisc(run, pb, db, rev);
        Ipv4InterfaceContainer ifs = ip.Assign(devs);
        ip.NewNetwork();
        for (int k = 0; k < 2; k++)
        {
            int n = k == 0 ? a : b;
            if (!has[n])
            {
                run.address[n] = ifs.GetAddress(k);
                has[n] = true;
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

void
BuildTraffic(Run& run)
{
    Time end = NanoSeconds(run.cfg["duration_ns"].Int());
    for (const Json& f : run.cfg["flows"].arr)
    {
        auto st = std::make_unique<FlowStats>();
        st->id = f["id"].Str();
        st->kind = f["kind"].Str();
        int src = f["src"].Int();
        int dst = f["dst"].Int();
        st->src = run.cfg["nodes"][src].Str();
        st->dst = run.cfg["nodes"][dst].Str();
        Dist startDist(f["start_ns"], run.stream);
        Time start = NanoSeconds(static_cast<int64_t>(std::max(0.0, startDist.Draw())));
        Time stop = f.Has("stop_ns") ? NanoSeconds(f["stop_ns"].Int()) : end;
        uint16_t port = static_cast<uint16_t>(f["port"].Int());
        Address to = InetSocketAddress(run.address[dst], port);
        Ptr<Node> sn = run.nodes.Get(src);
        Ptr<Node> dn = run.nodes.Get(dst);
        const std::string& kind = st->kind;
        if (kind == "tcp" || kind == "web" || kind == "tcp_onoff")
        {
            TcpConfig tc = ReadTcpConfig(f["tcp"]);
            auto sink = CreateObject<Sink>();
            sink->Setup(st.get(), port, true, tc);
            dn->AddApplication(sink);
            sink->SetStartTime(Seconds(0));
            auto app = CreateObject<TcpSource>();
            app->Setup(st.get(), to, tc, f["mss"].Int());
            app->mode = f["mode"].Str();
            app->size = f.IntOr("size_bytes", 0);
            if (f.Has("size_dist"))
            {
                app->size_dist = Dist(f["size_dist"], run.stream);
            }
            if (f.Has("idle_ns"))
            {
                app->idle_ns = Dist(f["idle_ns"], run.stream);
            }
            app->arrival_rate = f.NumOr("arrival_rate", 0);
            app->stream = run.stream++;
            sn->AddApplication(app);
            app->SetStartTime(start);
            app->SetStopTime(stop);
        }
        else if (kind == "udp")
        {
            auto sink = CreateObject<Sink>();
            sink->Setup(st.get(), port, false, TcpConfig{});
            dn->AddApplication(sink);
            sink->SetStartTime(Seconds(0));
            auto app = CreateObject<UdpSource>();
            app->Setup(st.get(), to);
            app->rate_pps = f["rate_pps"].Num();
            app->size = f["size_bytes"].Int();
            app->poisson = f["arrivals"].Str() == "poisson";
            app->burst_pkts = f.IntOr("burst_packets", 0);
            app->burst_every = NanoSeconds(f.IntOr("burst_every_ns", 0));
            app->ttl = f.IntOr("ttl", 64);
            app->stream = run.stream++;
            sn->AddApplication(app);
            app->SetStartTime(start);
            app->SetStopTime(stop);
        }
        else if (kind == "ping")
        {
            auto app = CreateObject<Ping>();
            app->SetAttribute("Destination", AddressValue(run.address[dst]));
            app->SetAttribute("Interval", TimeValue(NanoSeconds(f["interval_ns"].Int())));
            app->SetAttribute("Size", UintegerValue(f["size_bytes"].Int() - 28));
            app->SetAttribute("VerboseMode", EnumValue(Ping::SILENT));
            app->SetAttribute("Timeout", TimeValue(Seconds(3600)));
            FlowStats* sp = st.get();
            app->TraceConnectWithoutContext(
                "Rtt",
                MakeBoundCallback(+[](FlowStats* s, uint16_t, Time rtt) {
                    if (g_window.Now())
                    {
                        s->rtt.Add(rtt.GetSeconds());
                    }
                }, sp));
            app->TraceConnectWithoutContext(
                "Tx",
                MakeBoundCallback(+[](FlowStats* s, uint16_t, Ptr<Packet>) {
                    if (g_window.Now())
                    {
                        s->pkts_sent++;
                    }
                }, sp));
            st->start_s = start.GetSeconds();
            sn->AddApplication(app);
            app->SetStartTime(start);
            app->SetStopTime(stop);
        }
        else
        {
            throw std::runtime_error("config: unknown traffic kind " + kind);
        }
        run.flows.push_back(std::move(st));
    }
}

std::string
Results(Run& run, double wall_s)
{
    double w = g_window.Seconds();
    std::ostringstream o;
    o << "{\"wall_seconds\": " << Num(wall_s) << ", \"events\": " << Simulator::GetEventCount() << ",\n\"flows\": [";
    for (size_t i = 0; i < run.flows.size(); i++)
    {
        FlowStats& f = *run.flows[i];
        o << (i ? ",\n" : "\n") << "{\"id\": " << Quote(f.id) << ", \"kind\": " << Quote(f.kind) << ", \"src\": " << Quote(f.src)
          << ", \"dst\": " << Quote(f.dst) << ", \"goodput_bps\": " << Num(f.bytes_delivered * 8.0 / w)
          << ", \"bytes_delivered\": " << f.bytes_delivered << ", \"pkts_sent\": " << f.pkts_sent
          << ", \"rtt_mean_s\": " << Num(f.rtt.Mean()) << ", \"rtt_p50_s\": " << Num(f.rtt.Quantile(0.5))
          << ", \"rtt_p99_s\": " << Num(f.rtt.Quantile(0.99)) << ", \"rtt_samples\": " << f.rtt.v.size();
        if (f.kind != "udp" && f.kind != "ping")
        {
            o << ", \"retransmits\": " << f.retransmits << ", \"timeouts\": " << f.timeouts << ", \"duplicates\": " << f.duplicates;
        }
        o << ", \"start_s\": " << Num(f.start_s) << "}";
    }
    o << "],\n\"queues\": [";
    for (size_t i = 0; i < run.ports.size(); i++)
    {
        Port& p = *run.ports[i];
        o << (i ? ",\n" : "\n") << "{\"link\": " << Quote(p.name) << ", \"discipline\": " << Quote(p.discipline)
          << ", \"sojourn_mean_s\": " << Num(p.sojourn.Mean()) << ", \"sojourn_p50_s\": " << Num(p.sojourn.Quantile(0.5))
          << ", \"sojourn_p99_s\": " << Num(p.sojourn.Quantile(0.99)) << ", \"occupancy_mean_pkts\": " << Num(p.occ_pkts.Mean())
          << ", \"occupancy_mean_bytes\": " << Num(p.occ_bytes.Mean()) << ", \"device_queue_mean_pkts\": " << Num(p.occ_dev.Mean())
          << ", \"sojourn_samples\": " << p.sojourn.v.size() << ", \"arrivals\": " << p.arrivals
          << ", \"enqueued\": " << p.enqueued << ", \"dropped\": " << p.dropped << ", \"drops_by_reason\": {";
        bool first = true;
        for (auto& [k, v] : p.drops_by_reason)
        {
            o << (first ? "" : ", ") << Quote(k) << ": " << v;
            first = false;
        }
        o << "}}";
    }
    o << "],\n\"links\": [";
    for (size_t i = 0; i < run.ports.size(); i++)
    {
        Port& p = *run.ports[i];
        o << (i ? ",\n" : "\n") << "{\"link\": " << Quote(p.name) << ", \"rate_bps\": " << Num(p.rate_bps) << ", \"delay_s\": " << Num(p.delay_s)
          << ", \"utilization\": " << Num(p.busy_s / w) << ", \"bytes_sent\": " << p.bytes_sent << ", \"pkts_sent\": " << p.pkts_sent << "}";
    }
    o << "]}\n";
    return o.str();
}

} // namespace bl

int
main(int argc, char** argv)
{
    using namespace bl;
    if (argc != 3)
    {
        std::cerr << "usage: bufferlab-ns3 CONFIG.json RESULT.json\n";
        return 2;
    }
    auto wall0 = std::chrono::steady_clock::now();
    try
    {
        std::ifstream in(argv[1]);
        if (!in)
        {
            std::cerr << argv[1] << ": cannot read it\n";
            return 2;
        }
        std::stringstream ss;
        ss << in.rdbuf();
        std::string text = ss.str();
        Run run;
        run.cfg = Parser(text).Parse();
        Rfc3465Reno::GetTypeId(); // registered by name, for the configuration to ask for it
        // Attribute defaults for objects ns-3 creates itself (e.g. FQ-CoDel's per-flow CoDel):
        // the crosscheck's `--ns3 default.TYPE::ATTR=VALUE`, to measure one rule at a time.
        if (run.cfg.Has("defaults"))
        {
            for (auto& [k, v] : run.cfg["defaults"].obj)
            {
                Config::SetDefault(k, StringValue(v.Str()));
            }
        }
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(static_cast<uint64_t>(run.cfg["rng_run"].Int()));
        g_window.t0 = NanoSeconds(run.cfg["measure_ns"][0].Int());
        g_window.t1 = NanoSeconds(run.cfg["measure_ns"][1].Int());
        BuildNetwork(run);
        BuildTraffic(run);
        Time end = NanoSeconds(run.cfg["duration_ns"].Int());
        // Close every time average at the end of the window.
        Simulator::Schedule(g_window.t1, [&run]() {
            for (auto& p : run.ports)
            {
                p->occ_pkts.Set(p->occ_pkts.value);
                p->occ_bytes.Set(p->occ_bytes.value);
                p->occ_dev.Set(p->occ_dev.value);
            }
        });
        Simulator::Stop(end);
        Simulator::Run();
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        std::string out = Results(run, wall);
        Simulator::Destroy();
        std::ofstream o(argv[2]);
        o << out;
        if (!o)
        {
            std::cerr << argv[2] << ": cannot write it\n";
            return 1;
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "bufferlab-ns3: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
