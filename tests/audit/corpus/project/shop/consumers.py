"""Order updates pushed to browsers: the channel layer carries them between instances."""

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class OrderUpdates(AsyncJsonWebsocketConsumer):
    async def connect(self):
        await self.channel_layer.group_add("orders", self.channel_name)
        await self.accept()
