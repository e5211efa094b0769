#define _GNU_SOURCE
#include <nerve.h>
#include <nerve/msgs.h>
#include <stdio.h>
#include <time.h>
static unsigned long long now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000ull+t.tv_nsec;}
int main(void){
  nerve_type t; nerve_msgs_CmdVel_type(&t);
  nerve_topic_options o = nerve_topic_options_default();
  nerve_topic *topic; if (nerve_topic_open("prof/empty", &t, &o, &topic)) return 1;
  nerve_subscriber *sub; nerve_subscriber_open(topic, 0, &sub);
  nerve_publisher *pub; nerve_publisher_open(topic, &pub);
  nerve_msgs_CmdVel m = {0}, r; size_t len;
  for (int round=0; round<3; round++){
    unsigned long long t0=now(); long n=20000000;
    for (long i=0;i<n;i++) nerve_recv(sub,0,(uint8_t*)&r,sizeof r,&len);
    printf("empty poll %.2f ns\n",(double)(now()-t0)/n);
    t0=now(); n=5000000;
    for (long i=0;i<n;i++){ m.stamp_ns=i; nerve_publish(pub,(const uint8_t*)&m,sizeof m); nerve_recv(sub,0,(uint8_t*)&r,sizeof r,&len);}
    printf("send+recv %.2f ns\n",(double)(now()-t0)/n);
  }
  return 0;
}
